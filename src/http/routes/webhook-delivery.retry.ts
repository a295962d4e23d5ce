import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../domain/deps.ts';
import { unwrap } from '../../domain/errors.ts';
import { retryDelivery } from '../../domain/webhooks/delivery-log.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';
import { deliveryDetailSchema, deliveryIdParams } from './webhook-schemas.ts';

/** POST /api/v1/webhooks/deliveries/{delivery_id}/retry (contract §8). */
export const retryWebhookDeliveryRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/api/v1/webhooks/deliveries/:delivery_id/retry',
    {
      config: { auth: 'webhooks:write' },
      schema: {
        operationId: 'retryWebhookDelivery',
        summary: 'Send a failed webhook delivery again',
        description:
          'Only a `failed` delivery: it goes back to `pending` with a fresh budget of five attempts, the same `delivery_id` and the same body. Any other status is 400 `invalid_request`.',
        tags: ['Webhooks'],
        security: [{ bearerAuth: [] }],
        params: deliveryIdParams,
        response: { 200: deliveryDetailSchema, ...errorResponses(404) },
      },
    },
    async (request) => {
      const key = authOf(request);
      const detail = unwrap(await retryDelivery(ctx, { orgId: key.orgId, environment: key.environment, deliveryId: request.params.delivery_id }));
      ctx.wake.notify('webhook-deliveries');
      return detail;
    },
  );
};
