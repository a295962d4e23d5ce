export { Dossier, type DossierOptions } from './client.ts';
export {
  AuthenticationError,
  AuthorizationError,
  BillingError,
  DossierConnectionError,
  DossierError,
  DossierTimeoutError,
  InternalError,
  NotFoundError,
  PreconditionError,
  RateLimitError,
  ValidationError,
  type ErrorCode,
  type ErrorCodeOf,
  type ErrorType,
} from './errors.ts';
export type { ClientClock, FetchLike, RequestOptions } from './http.ts';
export type { CallInput, OperationId, PathParams, QueryParams, RequestBody, ResponseBody, Schema } from './operations.ts';
export { EventStream, PageList } from './pagination.ts';
export type { RateLimit, ResponseInfo, WithResponse } from './response.ts';
export type { CaseActionState, CaseDecisionParams, CaseErasure, CaseEvent, CaseEventPage, CaseEventsParams, CaseListParams, CasePackage, CaseRecord, DocumentDetail, DocumentErasure, DocumentPage, FactCorrection, FactCorrectionParams, QueuePage, QueueRow } from './resources/cases.ts';
export type { Connector, ConnectorDeleted, ConnectorImport, ConnectorList, ConnectorManifest, ConnectorOperationTest, ConnectorOperationTestParams, OpenApiImportParams } from './resources/connectors.ts';
export type { CaseTypeTry, CaseTypeTryParams } from './resources/case-types.ts';
export type { IdempotentRequestOptions } from './resources/idempotency.ts';
export type { IntegrationNotification, NotificationListParams, NotificationPage } from './resources/notifications.ts';
export type { ProcessAccepted, ProcessCreateParams } from './resources/process.ts';
export type { ExpiredSession, Session, SessionCreateParams } from './resources/sessions.ts';
export type { WebhookAcknowledgement, WebhookAcknowledgementParams, WebhookDelivery, WebhookDeliveryListParams, WebhookDeliveryPage, WebhookDeliverySummary, WebhookTestParams, WebhookTestResult } from './resources/webhooks.ts';
export { verifyWebhook, WebhookSignatureError, type VerifyWebhookOptions, type WebhookHeaders, type WebhookSignatureFailure } from './verify-webhook.ts';
export type { CaseStatus, WebhookEvent, WebhookEventData, WebhookEventOf, WebhookEventType } from './webhook-events.ts';
export { ERROR_STATUS_BY_TYPE, ERROR_TYPE_BY_CODE, WEBHOOK_EVENT_TYPES } from './generated/catalog.ts';
