import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { unwrap } from '../../domain/errors.ts';
import { recordListenerResult } from '../../domain/webhooks/listeners.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';

const resultBody = z
  .strictObject({
    delivery_id: z.string().min(1).max(255),
    attempt_token: z.string().min(1).max(255).meta({ description: 'As the `delivery` event gave it.' }),
    status_code: z.number().int().min(100).max(599).nullable().meta({ description: 'What the local receiver answered; null when it did not answer (refused, timed out).' }),
    duration_ms: z.number().int().min(0).max(3_600_000),
    error: z.string().max(1000).nullable().optional().meta({ description: 'Why there was no 2xx (`connection refused`).' }),
    response_excerpt: z.string().max(8192).nullable().optional().meta({ description: 'The start of the local answer; the first 4 KiB are kept.' }),
  })
  .meta({
    example: { delivery_id: 'dlv_7Gh2Jk4Lm6Np8Qr0St2Uv4Wx', attempt_token: 'listen:req_4f9KxY0bQ2mN8pR1sT6uV3wZ.x8Kq2mZr', status_code: 200, duration_ms: 14, error: null },
  });

const resultView = z
  .object({
    delivery_id: z.string(),
    recorded: z.literal(true),
    status: z.enum(['delivered', 'retry_scheduled', 'failed']).meta({ description: 'The delivery after this attempt.' }),
    attempt_number: z.number().int(),
    next_attempt_at: z.string().nullable(),
  })
  .meta({
    id: 'WebhookListenResult',
    example: { delivery_id: 'dlv_7Gh2Jk4Lm6Np8Qr0St2Uv4Wx', recorded: true, status: 'delivered', attempt_number: 1, next_attempt_at: null },
  });

/** POST /api/v1/webhooks/listen/results: the local receiver's answer, recorded as the delivery's attempt. */
export const listenResultsRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/api/v1/webhooks/listen/results',
    {
      config: { auth: 'webhooks:listen' },
      schema: {
        operationId: 'recordWebhookListenResult',
        summary: 'Report what the local receiver answered (dossier listen)',
        description:
          'Records one attempt of a delivery handed out on the listen stream, exactly as the delivery worker records its own: a 2xx delivers (and completes a handoff), anything else is a failed attempt retried on the §6.2 schedule. Refused (400 `invalid_request`, `param: attempt_token`) once the lease has run out: the delivery is then sent again.',
        tags: ['Webhooks'],
        security: [{ bearerAuth: [] }],
        body: resultBody,
        response: { 200: resultView, ...errorResponses() },
      },
    },
    async (request) => {
      const key = authOf(request);
      const body = request.body;
      const result = unwrap(
        await recordListenerResult(ctx, {
          orgId: key.orgId,
          environment: key.environment,
          deliveryId: body.delivery_id,
          attemptToken: body.attempt_token,
          statusCode: body.status_code,
          durationMs: body.duration_ms,
          error: body.error ?? null,
          responseExcerpt: body.response_excerpt ?? null,
        }),
      );
      ctx.metrics.countDeliveryAttempt(result.outcome, result.final);
      // A slot of the stream is free again (and a handoff may have moved).
      ctx.wake.notify('webhook-deliveries');
      return result.view;
    },
  );
};
