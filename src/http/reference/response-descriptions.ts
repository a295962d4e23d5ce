/**
 * A description for every response of the reference. @fastify/swagger writes "Default Response"
 * where a route's response schema has none; these say what each answer means instead. Success
 * answers are described per operation; error answers by status, naming the catalog codes that
 * status carries (spec §7).
 */

export const ERROR_RESPONSE_DESCRIPTIONS: Record<string, string> = {
  '400': 'Validation error (`validation_error`): the body, a path segment, the query or the idempotency key is invalid. `error.code` names the catalog code and `error.param`, when one field is at fault, names it.',
  '401': 'Authentication error: the key is missing, invalid, revoked, expired or for the other environment (`invalid_api_key`).',
  '402': 'Billing error: live access needs active billing (`billing_required`) or the live usage cap is reached (`live_usage_cap_exceeded`).',
  '403': 'Authorization error: the key lacks the scope this operation needs (`forbidden`).',
  '404': 'Not found: no such resource in this workspace and environment (`not_found`).',
  '409': 'Conflict with the resource’s current state.',
  '428': 'Precondition error: a required account step is missing, such as accepting the legal terms (`legal_acceptance_required`).',
  '429': 'Rate limited (`rate_limit_exceeded`, or `test_usage_cap_exceeded` for the monthly test sessions): retry after `Retry-After` seconds.',
  '500': 'Internal error: retry if the operation is safe to repeat; `request_id` identifies the failure.',
};

/** `operationId status` → what a success answer means. */
export const SUCCESS_RESPONSE_DESCRIPTIONS: Record<string, string> = {
  'createSession 201': 'The session was created: send the applicant to `signed_url`.',
  'createSession 200': 'A replay of an earlier request with the same idempotency key: the original session, with `idempotent_replay: true`.',
  'expireSession 200': 'The session, now `expired` (or already expired: expiring again answers the same session).',
  'getCase 200': 'The case record: the current operator workspace projection.',
  'getCase 304': 'Not modified: the case has not changed since the ETag sent in `If-None-Match`.',
  'listCases 200': 'A page of the operator queue, oldest first, with the cursor of the next page.',
  'decideCase 200': 'The case record after the decision: `complete`, and `v1.case.completed` is on its way.',
  'correctFact 200': 'The corrected fact, with the original value and evidence kept beside it.',
  'listCaseEvents 200': 'A page of the case’s event log; poll again with `after_cursor = next_cursor` while `has_more`.',
  'getCasePackage 200': 'The review-ready package: facts, documents and a signed case-file link.',
  'processDocument 202': 'The document was accepted and is being read: follow the case’s events or webhooks for the result.',
  'processDocument 200': 'A replay of an earlier request with the same idempotency key: the original answer.',
  'eraseCase 200': 'The case’s documents and personal data are erased; the case keeps its ids and event log.',
  'eraseDocument 200': 'The document is erased: its bytes, text and page images are gone; the facts it gave lose their evidence.',
  'getDocument 200': 'The document with its canonical page text, which evidence `location` offsets index, and page sizes.',
  'sendTestWebhook 200': 'The outcome of the signed `v1.webhook.test` delivery: whether the receiver answered 2xx, and its status code.',
  'listWebhookDeliveries 200': 'A page of the delivery log, newest first.',
  'getWebhookDelivery 200': 'The delivery with its attempts and the envelope as sent.',
  'retryWebhookDelivery 200': 'The delivery, scheduled to be sent again now.',
  'listenWebhooks 200': 'The listen stream (`text/event-stream`): a `ready` event with the listener’s signing secret, then one `delivery` event per delivery, and heartbeats.',
  'recordWebhookListenResult 200': 'The attempt is recorded: the delivery is `delivered`, or a retry is scheduled, or it `failed` for good.',
  'acknowledgeWebhookDelivery 200': 'The handoff is acknowledged (or already was: `already_acknowledged: true`).',
  'listNotifications 200': 'A page of integration notifications (for example deliveries that failed for good), newest first.',
  'createConnector 201': 'The connector was created from the manifest.',
  'createConnector 200': 'A connector with this key existed and was replaced by the manifest.',
  'listConnectors 200': 'Every connector of the workspace; secrets are never shown (`secret_set`).',
  'putConnector 201': 'The connector was created under this key.',
  'putConnector 200': 'The connector was replaced.',
  'getConnector 200': 'The connector and its operations; secrets are never shown (`secret_set`).',
  'deleteConnector 200': 'The connector was deleted.',
  'importOpenApiConnector 201': 'A connector was generated from the OpenAPI document and created.',
  'importOpenApiConnector 200': 'A connector was generated from the OpenAPI document and replaced the one with this key.',
  'retryCaseAction 200': 'The failed workflow action, scheduled to be sent again.',
  'testConnectorOperation 200': 'The request sent to your system with the sample inputs, and what it answered.',
  'tryCaseTypeDocument 200': 'What the sample gave: each fact found with its evidence and the anchor that matched, each fact not found with suggested anchors. Nothing was stored.',
  'getOpenApiDocument 200': 'This OpenAPI 3.1 document.',
  'checkHealth 200': 'The process is alive.',
  'checkReadiness 200': 'The process and its database are ready for traffic.',
  'checkReadiness 503': 'The database does not answer: send traffic elsewhere.',
};

export function responseDescription(operationId: string, status: string): string | undefined {
  return SUCCESS_RESPONSE_DESCRIPTIONS[`${operationId} ${status}`] ?? ERROR_RESPONSE_DESCRIPTIONS[status];
}
