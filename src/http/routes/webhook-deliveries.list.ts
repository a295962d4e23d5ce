import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { unwrap } from '../../domain/errors.ts';
import { listDeliveryLog } from '../../domain/webhooks/delivery-log.ts';
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhooks/event-types.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';
import { withErrorCodes } from '../validation.ts';
import { DELIVERY_STATUSES, deliverySummarySchema, pageLimit } from './webhook-schemas.ts';

const listQuery = withErrorCodes(
  z.object({
    case_id: z.string().min(1).max(255).optional().meta({ description: 'Only deliveries about this case.' }),
    status: z.enum(DELIVERY_STATUSES).optional(),
    event_type: z.enum(WEBHOOK_EVENT_TYPES).optional().meta({ description: 'A catalog name, e.g. v1.case.completed.' }),
    limit: pageLimit,
    starting_after: z.string().min(1).max(255).optional().meta({ description: 'The `next_cursor` of the previous page.' }),
  }),
  { limit: { missing: 'invalid_limit', invalid: 'invalid_limit' } },
);

const deliveryPage = z
  .object({
    deliveries: z.array(deliverySummarySchema),
    has_more: z.boolean(),
    next_cursor: z.string().nullable().meta({ description: 'Send as starting_after for the next page; null on the last.' }),
  })
  .meta({
    id: 'WebhookDeliveryPage',
    example: {
      deliveries: [
        {
          delivery_id: 'dlv_7Gh2Jk4Lm6Np8Qr0St2Uv4Wx',
          event_id: 'evt_3Hs9Lk2Pq8Rt5Vw1Xy4Za7Bc',
          event_type: 'v1.case.completed',
          endpoint_id: 'ep_5Rt6Yu7Io8Pa9Sd0Fg1Hj2Kl',
          endpoint_url: 'https://hooks.example.com/dossier',
          case_id: 'case_8Kq2mZr4Tn6VwXy0Ab1Cd2Ef',
          status: 'delivered',
          attempt_count: 1,
          max_attempts: 5,
          next_attempt_at: null,
          last_attempt_at: '2026-11-22T10:05:00.000Z',
          last_status_code: 200,
          last_error: null,
          delivered_at: '2026-11-22T10:05:00.090Z',
          failed_at: null,
          acknowledged_at: null,
          created_at: '2026-11-22T10:05:00.000Z',
          updated_at: '2026-11-22T10:05:00.090Z',
        },
      ],
      has_more: false,
      next_cursor: null,
    },
  });

/** GET /api/v1/webhooks/deliveries (contract §8): the delivery log, newest first. */
export const listWebhookDeliveriesRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/v1/webhooks/deliveries',
    {
      config: { auth: 'webhooks:read' },
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'List webhook deliveries',
        description:
          'Newest first, filtered by case, status or event type. Page with `limit` and `starting_after` (the previous page’s `next_cursor`); page boundaries stay put while new deliveries arrive.',
        tags: ['Webhooks'],
        security: [{ bearerAuth: [] }],
        querystring: listQuery,
        response: { 200: deliveryPage, ...errorResponses() },
      },
    },
    async (request) => {
      const key = authOf(request);
      const q = request.query;
      return unwrap(
        await listDeliveryLog(ctx, {
          orgId: key.orgId,
          environment: key.environment,
          limit: q.limit ?? 20,
          ...(q.case_id !== undefined ? { caseId: q.case_id } : {}),
          ...(q.status !== undefined ? { status: q.status } : {}),
          ...(q.event_type !== undefined ? { eventType: q.event_type } : {}),
          ...(q.starting_after !== undefined ? { startingAfter: q.starting_after } : {}),
        }),
      );
    },
  );
};
