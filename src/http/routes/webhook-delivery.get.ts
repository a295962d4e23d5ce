import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../domain/deps.ts';
import { unwrap } from '../../domain/errors.ts';
import { getDeliveryDetail } from '../../domain/webhooks/delivery-log.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';
import { deliveryDetailSchema, deliveryIdParams } from './webhook-schemas.ts';

/** GET /api/v1/webhooks/deliveries/{delivery_id} (contract §8). */
export const getWebhookDeliveryRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/v1/webhooks/deliveries/:delivery_id',
    {
      config: { auth: 'webhooks:read' },
      schema: {
        operationId: 'getWebhookDelivery',
        summary: 'Get a webhook delivery',
        description: 'Status, every attempt (time, status code, duration, error), `next_attempt_at` and the body sent.',
        tags: ['Webhooks'],
        security: [{ bearerAuth: [] }],
        params: deliveryIdParams,
        response: { 200: deliveryDetailSchema, ...errorResponses(404) },
      },
    },
    async (request) => {
      const key = authOf(request);
      return unwrap(await getDeliveryDetail(ctx, { orgId: key.orgId, environment: key.environment, deliveryId: request.params.delivery_id }));
    },
  );
};
