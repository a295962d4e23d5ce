import type { WEBHOOK_EVENT_TYPES } from './generated/catalog.ts';
import type { Schema } from './operations.ts';

/** Every `event_type` a delivery can carry (generated from the service's catalog). */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** How a completed case ended: decided by an operator, passed its gates on its own, or left by the applicant. */
export type CaseStatus = 'approved' | 'rejected' | 'decision_ready' | 'abandoned';

/**
 * The `data` of each event as the service writes it: ids and statuses only, never
 * document-derived values. The OpenAPI document describes `data` only as an object, so these are
 * written here; a type-level test fails when the catalog gains an event this map lacks.
 */
export interface WebhookEventData {
  'v1.webhook.test': { message: string };
  'v1.intake.submitted': { session_id: string };
  'v1.case.needs_input': { gate_id: string; fact_ids: string[] };
  'v1.case.ready_for_review': {
    reason: 'review_node' | 'gate_failed' | 'needs_input_without_applicant' | 'operator_decides';
    node_id: string;
    gate_id: string | null;
  };
  'v1.case.completed': { case_status: CaseStatus };
  'v1.session.expired': { session_id: string; expired_at: string };
  'v1.webhook.delivery_failed': {
    delivery_id: string;
    endpoint_id: string;
    endpoint_url: string;
    event_id: string;
    event_type: WebhookEventType;
    attempts: number;
    last_status_code: number | null;
    last_error: string | null;
  };
}

type Envelope = Schema<'WebhookEnvelope'>;
type Semantic<T extends string> = T extends `v1.${infer Name}` ? Name : T;

/** One delivery's envelope (spec §2.9) for one event type. */
export type WebhookEventOf<T extends WebhookEventType> = Omit<Envelope, 'event_type' | 'semantic_event_type' | 'data' | 'case_id'> & {
  event_type: T;
  semantic_event_type: Semantic<T>;
  /** Null only on `v1.webhook.test`, which is about no case. */
  case_id: T extends 'v1.webhook.test' ? null : string;
  data: WebhookEventData[T];
};

/** A verified delivery: a union discriminated on `event_type`, so `switch (event.event_type)` narrows `data`. */
export type WebhookEvent = { [T in WebhookEventType]: WebhookEventOf<T> }[WebhookEventType];
