import type { FastifyRouteSchemaDef } from 'fastify/types/schema.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { AppError, unwrap } from '../../domain/errors.ts';
import { acknowledgeDelivery } from '../../domain/webhooks/acknowledge.ts';
import { BODY_LIMIT_BYTES, parseApiJson } from '../plugins/json-body.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';
import { zodValidatorCompiler } from '../validation.ts';
import { deliveryIdParams } from './webhook-schemas.ts';

const acknowledgementId = z.string().min(1, 'must not be empty').max(255, 'must be at most 255 characters');

const ackBody = z
  .strictObject({
    acknowledgement_id: acknowledgementId.optional().meta({ description: 'Your id for this acknowledgement (1–255 characters). Default: the Idempotency-Key header.' }),
  })
  .meta({ example: { acknowledgement_id: 'crm-handoff-4711' } });

const ackHeaders = z.looseObject({
  'idempotency-key': z.string().optional().meta({ description: 'Used as the acknowledgement id when the body has none.' }),
});

const ackResult = z
  .object({
    acknowledged: z.literal(true),
    already_acknowledged: z.boolean().meta({ description: 'true when the handoff had been acknowledged before this request.' }),
    delivery_id: z.string(),
    case_id: z.string(),
    handoff_state: z.literal('acknowledged'),
    idempotent_replay: z.literal(true).optional().meta({ description: 'Present, and true, when this answers a repeat of an earlier acknowledgement id.' }),
  })
  .meta({
    id: 'WebhookAcknowledgement',
    example: {
      acknowledged: true,
      already_acknowledged: false,
      delivery_id: 'dlv_7Gh2Jk4Lm6Np8Qr0St2Uv4Wx',
      case_id: 'case_8Kq2mZr4Tn6VwXy0Ab1Cd2Ef',
      handoff_state: 'acknowledged',
    },
  });

function invalidPayload(message: string): AppError {
  return new AppError('invalid_acknowledgement_payload', message);
}

/**
 * Every way the body can be wrong is `invalid_acknowledgement_payload` (spec §4.7): not an object,
 * unknown fields, or an acknowledgement_id that is not a 1–255 character string. No body at all is
 * fine: the field is optional.
 */
function ackValidatorCompiler<T>(route: FastifyRouteSchemaDef<T>) {
  if (route.httpPart !== 'body') return zodValidatorCompiler(route as FastifyRouteSchemaDef<z.ZodType>);
  return (data: unknown) => {
    // No body at all arrives as null or undefined; a JSON `null` body was refused by the parser.
    const parsed = ackBody.safeParse(data ?? {});
    if (parsed.success) return { value: parsed.data };
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : 'the body ';
    return { error: invalidPayload(`Invalid acknowledgement payload: ${where}${issue?.message ?? 'is invalid'}.`) };
  };
}

/** POST /api/v1/webhooks/deliveries/{delivery_id}/ack (spec §4.7). */
export const ackWebhookDeliveryRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  // This route alone takes any JSON value (and an empty body), so a non-object is reported with
  // the acknowledgement's own code rather than the API-wide invalid_request.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json(\s*;.*)?$/i, { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    const parsed = parseApiJson(text, JSON.parse);
    if (!parsed.ok) return done(parsed.error, undefined);
    const value = parsed.value;
    if (value === null) return done(invalidPayload('Invalid acknowledgement payload: the body must be a JSON object.'), undefined);
    return done(null, value);
  });

  app.post(
    '/api/v1/webhooks/deliveries/:delivery_id/ack',
    {
      config: { auth: 'webhooks:acknowledge' },
      validatorCompiler: ackValidatorCompiler,
      schema: {
        operationId: 'acknowledgeWebhookDelivery',
        summary: 'Acknowledge a decision-ready handoff',
        description:
          'Records that your system received the `v1.case.completed` delivery: the case’s `handoff_state` becomes `acknowledged`. The delivery must be `delivered` (else 400 `webhook_delivery_not_delivered`). Repeating is harmless (`already_acknowledged: true`); with an acknowledgement id (body, or the Idempotency-Key header) a repeat replays the first answer and the same id for another delivery is `idempotency_key_conflict`.',
        tags: ['Webhooks'],
        security: [{ bearerAuth: [] }],
        params: deliveryIdParams,
        headers: ackHeaders,
        body: ackBody.optional(),
        response: { 200: ackResult, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const key = authOf(request);
      const header = request.headers['idempotency-key'];
      const headerId = Array.isArray(header) ? header[0] : header;
      const fromHeader = headerId === undefined ? undefined : acknowledgementId.safeParse(headerId);
      if (fromHeader && !fromHeader.success) throw invalidPayload('Invalid acknowledgement payload: the Idempotency-Key header must be 1–255 characters.');
      const result = unwrap(
        await acknowledgeDelivery(ctx, {
          orgId: key.orgId,
          environment: key.environment,
          deliveryId: request.params.delivery_id,
          acknowledgementId: request.body?.acknowledgement_id ?? fromHeader?.data ?? null,
        }),
      );
      if (result.idempotent_replay) reply.header('idempotent-replayed', 'true');
      return result;
    },
  );
};
