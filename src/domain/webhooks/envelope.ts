import { semanticEventType } from './event-types.ts';

/** What caused a webhook event: everything the envelope carries besides its delivery. */
export interface WebhookEventInput {
  orgId: string;
  environment: 'test' | 'live';
  /** Catalog name with prefix, e.g. 'v1.case.completed'. */
  eventType: string;
  /** The case event id that caused it (evt_…). */
  eventId: string;
  caseId: string;
  sessionId: string | null;
  externalCaseId: string | null;
  externalApplicantId: string | null;
  externalCustomerId: string | null;
  /** The Idempotency-Key of the API request that caused the event; null when none did. */
  idempotencyKey: string | null;
  traceId: string;
  occurredAt: Date;
  data: Record<string, unknown>;
}

/** Spec §2.9, field for field and in that order. Absent customer identities are null. */
export interface WebhookEnvelope {
  event_id: string;
  delivery_id: string;
  event_type: string;
  semantic_event_type: string;
  schema_version: 'v1';
  created_at: string;
  occurred_at: string;
  org_id: string;
  case_id: string | null;
  session_id: string | null;
  external_case_id: string | null;
  external_applicant_id: string | null;
  external_customer_id: string | null;
  /** Never empty, the same in every delivery, attempt and retry of one event: see {@link envelopeIdempotencyKey}. */
  idempotency_key: string;
  trace_id: string;
  data: Record<string, unknown>;
}

/**
 * The envelope's `idempotency_key` (issue 9 §2): the causing request's Idempotency-Key when a keyed
 * API request caused the event, else `event:` + the event id. Both are fixed when the event is
 * enqueued, and the envelope is stored once per delivery, so every attempt, manual retry and
 * endpoint of the event carries the same key.
 */
export function envelopeIdempotencyKey(event: Pick<WebhookEventInput, 'idempotencyKey' | 'eventId'>): string {
  return event.idempotencyKey || `event:${event.eventId}`;
}

export function buildEnvelope(
  event: Omit<WebhookEventInput, 'caseId'> & { caseId: string | null },
  deliveryId: string,
  createdAt: Date,
): WebhookEnvelope {
  return {
    event_id: event.eventId,
    delivery_id: deliveryId,
    event_type: event.eventType,
    semantic_event_type: semanticEventType(event.eventType),
    schema_version: 'v1',
    created_at: createdAt.toISOString(),
    occurred_at: event.occurredAt.toISOString(),
    org_id: event.orgId,
    case_id: event.caseId,
    session_id: event.sessionId,
    external_case_id: event.externalCaseId,
    external_applicant_id: event.externalApplicantId,
    external_customer_id: event.externalCustomerId,
    idempotency_key: envelopeIdempotencyKey(event),
    trace_id: event.traceId,
    data: event.data,
  };
}
