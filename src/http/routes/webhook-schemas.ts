import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhooks/event-types.ts';

/** Shared by the webhook routes: the delivery log's shapes and their examples. */

export const DELIVERY_STATUSES = ['pending', 'retry_scheduled', 'delivered', 'failed'] as const;

export const deliveryIdParams = z.object({
  delivery_id: z.string().min(1).max(255).meta({ description: 'A delivery id (`dlv_…`), the `delivery_id` of the envelope.' }),
});

const integerText = /^\s*\d+\s*$/;

/** `limit` as the delivery log and notifications take it: 1 to 100, default 20. */
export const pageLimit = z
  .string()
  .regex(integerText, 'must be an integer from 1 to 100')
  .transform(Number)
  .pipe(z.number().int().min(1, 'must be from 1 to 100').max(100, 'must be from 1 to 100'))
  .optional()
  .meta({ description: 'Page size, 1 to 100. Default 20.', type: 'integer', example: 20 });

const exampleEnvelope = {
  event_id: 'evt_3Hs9Lk2Pq8Rt5Vw1Xy4Za7Bc',
  delivery_id: 'dlv_7Gh2Jk4Lm6Np8Qr0St2Uv4Wx',
  event_type: 'v1.case.completed',
  semantic_event_type: 'case.completed',
  schema_version: 'v1',
  created_at: '2026-11-22T10:05:00.000Z',
  occurred_at: '2026-11-22T10:05:00.000Z',
  org_id: 'org_1Ab2Cd3Ef4Gh5Ij6Kl7Mn8Op',
  case_id: 'case_8Kq2mZr4Tn6VwXy0Ab1Cd2Ef',
  session_id: '0b6f7c8e-1d2a-4f5b-9c3d-2e1f0a9b8c7d',
  external_case_id: 'loan-4711',
  external_applicant_id: null,
  external_customer_id: null,
  idempotency_key: 'create-loan-4711',
  trace_id: 'req_4f9KxY0bQ2mN8pR1sT6uV3wZ',
  data: { case_status: 'approved' },
};

export const envelopeSchema = z
  .object({
    event_id: z.string(),
    delivery_id: z.string().meta({ description: 'Unique per delivery: deduplicate on it.' }),
    event_type: z.string().meta({ description: `A catalog name: ${WEBHOOK_EVENT_TYPES.join(', ')}.` }),
    semantic_event_type: z.string(),
    schema_version: z.literal('v1'),
    created_at: z.string(),
    occurred_at: z.string(),
    org_id: z.string(),
    case_id: z.string().nullable(),
    session_id: z.string().nullable(),
    external_case_id: z.string().nullable().meta({ description: 'Your identity for the case; null when none was given.' }),
    external_applicant_id: z.string().nullable(),
    external_customer_id: z.string().nullable(),
    idempotency_key: z.string().min(1).meta({
      description: 'The Idempotency-Key of the API request that caused the event, else `event:` + the event id. The same in every delivery, attempt, retry and endpoint of one event: make your side effect idempotent on it.',
    }),
    trace_id: z.string(),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'WebhookEnvelope', description: 'The body of every delivery (spec §2.9).', example: exampleEnvelope });

const exampleSummary = {
  delivery_id: 'dlv_7Gh2Jk4Lm6Np8Qr0St2Uv4Wx',
  event_id: 'evt_3Hs9Lk2Pq8Rt5Vw1Xy4Za7Bc',
  event_type: 'v1.case.completed',
  endpoint_id: 'ep_5Rt6Yu7Io8Pa9Sd0Fg1Hj2Kl',
  endpoint_url: 'https://hooks.example.com/dossier',
  case_id: 'case_8Kq2mZr4Tn6VwXy0Ab1Cd2Ef',
  status: 'retry_scheduled',
  attempt_count: 1,
  max_attempts: 5,
  next_attempt_at: '2026-11-22T10:06:00.000Z',
  last_attempt_at: '2026-11-22T10:05:00.000Z',
  last_status_code: 503,
  last_error: 'HTTP 503',
  delivered_at: null,
  failed_at: null,
  acknowledged_at: null,
  created_at: '2026-11-22T10:05:00.000Z',
  updated_at: '2026-11-22T10:05:00.120Z',
};

const summaryShape = {
  delivery_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  endpoint_id: z.string(),
  endpoint_url: z.string(),
  case_id: z.string().nullable(),
  status: z.enum(DELIVERY_STATUSES),
  attempt_count: z.number().int().meta({ description: 'Attempts made of `max_attempts` (a retry through the API starts a new budget).' }),
  max_attempts: z.number().int(),
  next_attempt_at: z.string().nullable().meta({ description: 'When the next attempt is due; null once delivered or failed.' }),
  last_attempt_at: z.string().nullable(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  delivered_at: z.string().nullable(),
  failed_at: z.string().nullable(),
  acknowledged_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
};

export const deliverySummarySchema = z.object(summaryShape).meta({ id: 'WebhookDeliverySummary', example: exampleSummary });

export const attemptSchema = z.object({
  attempt_number: z.number().int(),
  attempted_at: z.string(),
  status_code: z.number().int().nullable().meta({ description: 'null when there was no HTTP answer.' }),
  duration_ms: z.number().int(),
  error: z.string().nullable(),
  response_excerpt: z.string().nullable().meta({ description: 'The first 4 KiB of the answer.' }),
});

export const deliveryDetailSchema = z
  .object({ ...summaryShape, attempts: z.array(attemptSchema), envelope: envelopeSchema })
  .meta({
    id: 'WebhookDelivery',
    description: 'One event to one endpoint, with every attempt.',
    example: {
      ...exampleSummary,
      attempts: [
        { attempt_number: 1, attempted_at: '2026-11-22T10:05:00.000Z', status_code: 503, duration_ms: 118, error: 'HTTP 503', response_excerpt: 'busy' },
      ],
      envelope: exampleEnvelope,
    },
  });
