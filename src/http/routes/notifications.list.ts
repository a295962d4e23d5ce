import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { unwrap } from '../../domain/errors.ts';
import { listNotificationViews } from '../../domain/webhooks/notifications.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';
import { withErrorCodes } from '../validation.ts';
import { pageLimit } from './webhook-schemas.ts';

const listQuery = withErrorCodes(
  z.object({
    limit: pageLimit,
    starting_after: z.string().min(1).max(255).optional().meta({ description: 'The `next_cursor` of the previous page.' }),
  }),
  { limit: { missing: 'invalid_limit', invalid: 'invalid_limit' } },
);

const notificationPage = z
  .object({
    notifications: z.array(
      z.object({
        notification_id: z.string(),
        kind: z.enum(['webhook_delivery_failed', 'webhook_no_endpoint']),
        message: z.string(),
        data: z.record(z.string(), z.unknown()),
        created_at: z.string(),
      }),
    ),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
  })
  .meta({
    id: 'NotificationPage',
    example: {
      notifications: [
        {
          notification_id: 'ntf_2Ws3Ed4Rf5Tg6Yh7Uj8Ik9Ol',
          kind: 'webhook_delivery_failed',
          message: 'Delivery dlv_7Gh2Jk4Lm6Np8Qr0St2Uv4Wx of v1.case.completed to https://hooks.example.com/dossier failed after 5 attempts (last: HTTP 503). Fix the endpoint, then retry the delivery.',
          data: { delivery_id: 'dlv_7Gh2Jk4Lm6Np8Qr0St2Uv4Wx', case_id: 'case_8Kq2mZr4Tn6VwXy0Ab1Cd2Ef', attempts: 5, last_status_code: 503 },
          created_at: '2026-11-22T12:42:00.000Z',
        },
      ],
      has_more: false,
      next_cursor: null,
    },
  });

/** GET /api/v1/notifications: integration notifications (failed deliveries, handoffs with no endpoint). */
export const listNotificationsRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/v1/notifications',
    {
      config: { auth: 'webhooks:read' },
      schema: {
        operationId: 'listNotifications',
        summary: 'List integration notifications',
        description: 'What needs a developer’s attention: deliveries that failed for good, handoffs no endpoint was subscribed to. Newest first, paged like the delivery log.',
        tags: ['Webhooks'],
        security: [{ bearerAuth: [] }],
        querystring: listQuery,
        response: { 200: notificationPage, ...errorResponses() },
      },
    },
    async (request) => {
      const key = authOf(request);
      const q = request.query;
      return unwrap(
        await listNotificationViews(ctx, {
          orgId: key.orgId,
          environment: key.environment,
          limit: q.limit ?? 20,
          ...(q.starting_after !== undefined ? { startingAfter: q.starting_after } : {}),
        }),
      );
    },
  );
};
