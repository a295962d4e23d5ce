import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { unwrap } from '../../domain/errors.ts';
import { knownReplay } from '../../domain/idempotency/idempotency.ts';
import { createSession } from '../../domain/sessions/create-session.ts';
import { idempotencyKeyOf } from '../idempotency-key.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';
import { sessionSchema } from '../schemas/session.ts';
import { withErrorCodes } from '../validation.ts';

const identity = z.string().min(1).max(255);
const notSupported = z
  .unknown()
  .refine((v) => v === undefined, 'per-request webhook URLs are not supported: register endpoints in the dashboard or with `dossier endpoint add`')
  .optional()
  .meta({ description: 'Not supported: sending it is an error.', deprecated: true });
const perRequestUrl = { missing: 'per_request_webhook_url_not_supported', invalid: 'per_request_webhook_url_not_supported' } as const;
const integrationIdentity = { missing: 'invalid_integration_identity', invalid: 'invalid_integration_identity' } as const;

export const createSessionBody = withErrorCodes(
  z
    .strictObject({
      idempotency_key: z.string().min(1).max(255).optional().meta({ description: 'Or the Idempotency-Key header; the body wins.' }),
      case_type_id: z.string().min(1).max(64).meta({ description: 'A case type of this workspace.' }),
      external_case_id: identity.optional().meta({ description: 'Your id for the case; unique per workspace and environment.' }),
      external_applicant_id: identity.optional(),
      external_customer_id: identity.optional(),
      prefill: z.record(z.string(), z.unknown()).optional().meta({ description: 'Form answers to pre-fill, keyed by form field id.' }),
      metadata: z
        .record(z.string().min(1).max(40), z.string().max(500))
        .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys')
        .optional(),
      locale: z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a BCP 47 language tag such as en or en-US').optional(),
      return_url: z
        .url({ protocol: /^https?$/, error: 'must be an absolute http or https URL' })
        .max(2048)
        .optional()
        .meta({ description: 'Where the applicant returns after submitting, with `session_id`, `case_id` and `status` added. https; with a test key also http://localhost, http://127.0.0.1 or http://[::1].' }),
      expires_in_seconds: z.number().int().min(1800).max(604_800).optional().meta({ description: '1 800 to 604 800; default 86 400.' }),
      webhook_url: notSupported,
      callback_url: notSupported,
      notification_url: notSupported,
    })
    .meta({
      example: { case_type_id: 'income_verification', external_case_id: 'loan-4711', prefill: { full_name: 'Jane Doe' }, metadata: { branch: 'north' } },
    }),
  {
    idempotency_key: { missing: 'missing_idempotency_key' },
    case_type_id: { missing: 'missing_case_type_id' },
    external_case_id: integrationIdentity,
    external_applicant_id: integrationIdentity,
    external_customer_id: integrationIdentity,
    webhook_url: perRequestUrl,
    callback_url: perRequestUrl,
    notification_url: perRequestUrl,
  },
);

/**
 * The key a replay may be answered under before validation, read as `idempotencyKeyOf` reads it;
 * undefined where that would refuse or where the body's key is not a string (validation decides).
 */
function replayKeyOf(body: Record<string, unknown>, header: string | string[] | undefined): string | undefined {
  const bodyKey = body.idempotency_key;
  if (bodyKey !== undefined) return typeof bodyKey === 'string' ? bodyKey : undefined;
  return Array.isArray(header) ? header[0] : header;
}

/** POST /api/v1/sessions (spec §4.4). */
export const createSessionRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  // The replay's text per remembered answer (its frozen body), serialised once by this app's 200 serializer.
  const replayTexts = new WeakMap<object, string>();
  app.post(
    '/api/v1/sessions',
    {
      config: { auth: 'sessions:write' },
      // A replay this process remembers, with the body it was first sent with, is answered here:
      // after authentication, scope and rate limit (onRequest hooks), before zod and the handler.
      // The text is what the handler's replay sends, serialised once (issue 16: zod, the spread and
      // JSON.stringify were most of a replay's own CPU). Anything else (a new, unknown or expired
      // key, another body, a key that is not a string) falls through to validation and the handler.
      preValidation: async (request, reply) => {
        const key = request.apiKey;
        const body = request.body as Record<string, unknown> | undefined;
        if (!key || body === null || typeof body !== 'object') return;
        const idempotencyKey = replayKeyOf(body, request.headers['idempotency-key']);
        if (idempotencyKey === undefined) return;
        const known = knownReplay(
          { orgId: key.orgId, environment: key.environment, operation: 'sessions.create', key: idempotencyKey, body },
          ctx.clock.now(),
          request.rawJsonBody,
        );
        if (!known) return;
        let text = replayTexts.get(known.body);
        if (text === undefined) {
          text = reply.getSerializationFunction('200')!({ ...known.body, idempotent_replay: true });
          replayTexts.set(known.body, text);
        }
        return reply.code(200).header('idempotent-replayed', 'true').type('application/json; charset=utf-8').send(text as never); // a string with a JSON type is sent as it is
      },
      schema: {
        operationId: 'createSession',
        summary: 'Create a hosted intake session',
        description:
          'Creates a case and a signed link for the applicant. Idempotent: a replay with the same key answers 200 with the original session, `idempotent_replay: true` and the header `Idempotent-Replayed: true`.',
        tags: ['Sessions'],
        security: [{ bearerAuth: [] }],
        headers: z.looseObject({ 'idempotency-key': z.string().optional().meta({ description: 'Idempotency key (1–255 characters).' }) }),
        body: createSessionBody,
        response: { 201: sessionSchema, 200: sessionSchema, ...errorResponses(402, 404, 428) },
      },
    },
    async (request, reply) => {
      const key = authOf(request);
      const idempotencyKey = idempotencyKeyOf(request, request.body.idempotency_key);
      const result = unwrap(
        await createSession(ctx, {
          key,
          idempotencyKey,
          rawBody: request.body as Record<string, unknown>,
          request: request.body,
          traceId: String(request.id),
        }),
      );
      if (result.replay) {
        return reply.code(200).header('idempotent-replayed', 'true').send({ ...(result.body as z.infer<typeof sessionSchema>), idempotent_replay: true });
      }
      return reply.code(result.status as 201).send(result.body as z.infer<typeof sessionSchema>);
    },
  );
};
