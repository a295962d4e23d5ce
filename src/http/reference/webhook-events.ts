import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../domain/webhooks/event-types.ts';

/**
 * The reference's "Webhook events" section: OpenAPI 3.1's top-level `webhooks`, one entry per
 * catalog event, each the envelope (spec §2.9) with that event's `data` and an example. Redoc
 * lists them beside the operations. The `data` shapes are what the service writes: ids and
 * statuses only, never values read from documents.
 */

interface EventDoc {
  summary: string;
  description: string;
  data: Record<string, unknown>;
  dataSchema: Record<string, unknown>;
}

const str = { type: 'string' };
const nullableStr = { type: ['string', 'null'] };

const EVENTS: Record<WebhookEventType, EventDoc> = {
  'v1.webhook.test': {
    summary: 'A test delivery',
    description: 'Sent only by `POST /api/v1/webhooks/test` and the dashboard’s “Send test event”; about no case (`case_id` is null).',
    data: { message: 'This is a test webhook from Dossier. Verify its signature, answer 2xx, and you are ready.' },
    dataSchema: { type: 'object', properties: { message: str }, required: ['message'] },
  },
  'v1.intake.submitted': {
    summary: 'The applicant submitted the intake',
    description: 'The applicant pressed Submit on the check-answers page; documents may still be being read.',
    data: { session_id: '0b6f7c8e-1d2a-4f5b-9c3d-2e1f0a9b8c7d' },
    dataSchema: { type: 'object', properties: { session_id: str }, required: ['session_id'] },
  },
  'v1.case.needs_input': {
    summary: 'A gate needs facts no document gave',
    description: 'The applicant is asked follow-up questions for `fact_ids` while the session is open; otherwise an operator is.',
    data: { gate_id: 'income_gate', fact_ids: ['gross_pay'] },
    dataSchema: { type: 'object', properties: { gate_id: str, fact_ids: { type: 'array', items: str } }, required: ['gate_id', 'fact_ids'] },
  },
  'v1.case.ready_for_review': {
    summary: 'The case is in an operator’s queue',
    description: 'The case waits for a decision; `reason` says why it is there.',
    data: { reason: 'review_node', node_id: 'underwriter_review', gate_id: null },
    dataSchema: {
      type: 'object',
      properties: {
        reason: { type: 'string', enum: ['review_node', 'gate_failed', 'needs_input_without_applicant', 'operator_decides'] },
        node_id: str,
        gate_id: nullableStr,
      },
      required: ['reason', 'node_id', 'gate_id'],
    },
  },
  'v1.case.completed': {
    summary: 'The case is complete: the handoff',
    description:
      'Decided by an operator (`approved`, `rejected`), passed its gates on its own (`decision_ready`) or left by the applicant (`abandoned`). Read the case or its package, then acknowledge this delivery with `POST /api/v1/webhooks/deliveries/{delivery_id}/ack`.',
    data: { case_status: 'approved' },
    dataSchema: {
      type: 'object',
      properties: { case_status: { type: 'string', enum: ['approved', 'rejected', 'decision_ready', 'abandoned'] } },
      required: ['case_status'],
    },
  },
  'v1.session.expired': {
    summary: 'The applicant’s link expired unsubmitted',
    description: 'Followed by `v1.case.completed` with `case_status: abandoned` when the intake was never submitted.',
    data: { session_id: '0b6f7c8e-1d2a-4f5b-9c3d-2e1f0a9b8c7d', expired_at: '2026-11-23T10:00:00.000Z' },
    dataSchema: { type: 'object', properties: { session_id: str, expired_at: str }, required: ['session_id', 'expired_at'] },
  },
  'v1.webhook.delivery_failed': {
    summary: 'A delivery failed for good',
    description: 'All five attempts of a delivery failed (spec §6.2). Not sent about itself.',
    data: {
      delivery_id: 'dlv_7Gh2Jk4Lm6Np8Qr0St2Uv4Wx',
      endpoint_id: 'ep_5Rt6Yu7Io8Pa9Sd0Fg1Hj2Kl',
      endpoint_url: 'https://hooks.example.com/dossier',
      event_id: 'evt_3Hs9Lk2Pq8Rt5Vw1Xy4Za7Bc',
      event_type: 'v1.case.completed',
      attempts: 5,
      last_status_code: 503,
      last_error: null,
    },
    dataSchema: {
      type: 'object',
      properties: {
        delivery_id: str,
        endpoint_id: str,
        endpoint_url: str,
        event_id: str,
        event_type: str,
        attempts: { type: 'integer' },
        last_status_code: { type: ['integer', 'null'] },
        last_error: nullableStr,
      },
      required: ['delivery_id', 'endpoint_id', 'endpoint_url', 'event_id', 'event_type', 'attempts', 'last_status_code', 'last_error'],
    },
  },
};

const SIGNATURE_NOTE =
  'Verify the signature before trusting the body: `X-Service-Signature` (Stripe’s scheme, `t=…,v1=…`) or the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`), with the endpoint’s signing secret. Answer 2xx within 10 s; anything else is retried after 60 s, 5 min, 30 min and 2 h.';

/** The OpenAPI 3.1 `webhooks` object. `envelope` is the example of the shared envelope schema. */
export function webhookEventsReference(envelope: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((eventType) => {
      const doc = EVENTS[eventType];
      const example = {
        ...envelope,
        event_type: eventType,
        semantic_event_type: eventType.slice(3),
        ...(eventType === 'v1.webhook.test' ? { case_id: null, session_id: null, external_case_id: null } : {}),
        data: doc.data,
      };
      const operation = {
        post: {
          operationId: `event_${eventType.slice(3).replaceAll('.', '_')}`,
          summary: `${eventType}: ${doc.summary}`,
          description: `${doc.description}\n\n${SIGNATURE_NOTE}`,
          tags: ['Webhook events'],
          // Your endpoint is not called with a key: the signature headers are its security.
          security: [],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  allOf: [
                    { $ref: '#/components/schemas/WebhookEnvelope' },
                    { type: 'object', properties: { event_type: { const: eventType }, data: doc.dataSchema } },
                  ],
                },
                example,
              },
            },
          },
          responses: { '2XX': { description: 'Received. Any other answer, or none within 10 s, is a failed attempt and is retried.' } },
        },
      };
      return [eventType, operation];
    }),
  );
}
