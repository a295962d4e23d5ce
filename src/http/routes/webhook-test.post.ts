import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { unwrap } from '../../domain/errors.ts';
import { sendTestWebhook } from '../../domain/webhooks/test-send.ts';
import { WEBHOOK_USER_AGENT } from '../../domain/webhooks/sent-request.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';
import { withErrorCodes } from '../validation.ts';

const testBody = withErrorCodes(
  z
    .object({
      endpoint_url: z.string().trim().min(1).max(2048).meta({ description: 'The receiver: a public https URL.' }),
      signing_secret: z.string().min(1).max(255).meta({ description: 'The secret to sign with, as your receiver verifies (`whsec_…`).' }),
    })
    .meta({ example: { endpoint_url: 'https://hooks.example.com/dossier', signing_secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } }),
  {
    endpoint_url: { missing: 'missing_endpoint_url', invalid: 'invalid_endpoint_url' },
    signing_secret: { missing: 'missing_signing_secret' },
  },
);

const testResult = z
  .object({
    success: z.boolean().meta({ description: 'The receiver answered 2xx.' }),
    status_code: z.number().int().nullable().meta({ description: "The receiver's HTTP status; null when there was no HTTP answer." }),
    error: z.string().optional().meta({ description: 'Why it failed (absent on success).' }),
    delivery_id: z.string().meta({ description: 'The `webhook-id` and `delivery_id` the test carried.' }),
    duration_ms: z.number().int(),
    stored: z.boolean().meta({ description: 'Whether the test is kept in the delivery log, with its attempt: it is when `endpoint_url` and `signing_secret` are one of your endpoints’.' }),
  })
  .meta({
    id: 'WebhookTestResult',
    example: { success: false, status_code: null, error: 'connection_failed: ECONNREFUSED', delivery_id: 'dlv_7Gh2Jk4Lm6Np8Qr0St2Uv4Wx', duration_ms: 12, stored: true },
  });

/** POST /api/v1/webhooks/test (spec §4.6, contract §8). */
export const webhookTestRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/api/v1/webhooks/test',
    {
      config: { auth: 'webhooks:test' },
      schema: {
        operationId: 'sendTestWebhook',
        summary: 'Send a signed test webhook',
        description:
          'Sends one signed `v1.webhook.test` delivery to `endpoint_url` now, through the same client and signing as real deliveries (no redirects, the address checked at connection time). A receiver that fails or cannot be reached is answered 200 with `success: false`. When the URL and secret are one of your endpoints’, the test is kept in its delivery log with its attempt (`stored: true`). To test a receiver on your own machine, run `npm run dossier -- listen --forward-to http://localhost:4567/hook`.',
        tags: ['Webhooks'],
        security: [{ bearerAuth: [] }],
        body: testBody,
        response: { 200: testResult, ...errorResponses(428) },
      },
    },
    async (request) => {
      const key = authOf(request);
      return unwrap(
        await sendTestWebhook(
          { ...ctx, http: ctx.outbound.webhooks },
          {
            orgId: key.orgId,
            environment: key.environment,
            endpointUrl: request.body.endpoint_url,
            signingSecret: request.body.signing_secret,
            traceId: String(request.id),
            userAgent: WEBHOOK_USER_AGENT,
          },
        ),
      );
    },
  );
};
