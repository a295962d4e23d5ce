import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { unwrap } from '../../domain/errors.ts';
import { processDocument } from '../../domain/processing/process-document.ts';
import { idempotencyKeyOf } from '../idempotency-key.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';
import { withErrorCodes } from '../validation.ts';

const processBody = withErrorCodes(
  z
    .strictObject({
      idempotency_key: z.string().min(1).max(255).optional().meta({ description: 'Or the Idempotency-Key header; the body wins.' }),
      document_url: z
        .string()
        .min(1)
        .max(2048)
        .meta({ description: 'A public https URL of the document (PDF, PNG, JPEG, DOCX or plain text, at most 20 MB). With a test key, also a sample document: `dossier-test:<case_type_id>/<document_kind>/<outcome>` (see Sample documents).' }),
      case_type_id: z.string().min(1).max(64).optional().meta({ description: 'Required unless case_id names an existing case.' }),
      case_id: z.string().min(1).max(100).optional().meta({ description: 'Add the document to this case instead of opening a new one.' }),
      external_case_id: z.string().min(1).max(255).optional(),
      document_kind: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a document kind of the case type, e.g. pay_stub').optional(),
      filename: z.string().min(1).max(255).optional(),
      structured_inputs: z.record(z.string(), z.unknown()).optional().meta({ description: 'Known answers, keyed by form field id (used by matches_input rules).' }),
    })
    .meta({ example: { document_url: 'https://files.example.com/paystub-4711.pdf', case_type_id: 'income_verification', document_kind: 'pay_stub', structured_inputs: { full_name: 'Jane Doe' } } }),
  {
    idempotency_key: { missing: 'missing_idempotency_key' },
    document_url: { missing: 'missing_document_url', invalid: 'invalid_document_url' },
    case_type_id: { missing: 'missing_case_type_id' },
    external_case_id: { missing: 'invalid_integration_identity', invalid: 'invalid_integration_identity' },
  },
);

const processAccepted = z
  .object({
    case_id: z.string(),
    document_id: z.string(),
    status: z.literal('processing'),
    idempotent_replay: z.literal(true).optional(),
  })
  .meta({ id: 'ProcessAccepted', example: { case_id: 'case_8Kq2mZr4Tn6VwXy0Ab1Cd2Ef', document_id: 'doc_1Ab2Cd3Ef4Gh5Ij6Kl7Mn8Op', status: 'processing' } });

/** POST /api/v1/process (spec §4.5). */
export const processDocumentRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/api/v1/process',
    {
      config: { auth: 'process:write' },
      schema: {
        operationId: 'processDocument',
        summary: 'Process a document from a URL',
        description:
          'Accepts a document URL for a new case (case_type_id) or an existing one (case_id). The URL is checked at once and the document fetched by the worker; follow the case through events, webhooks or reads. Idempotent like POST /sessions.',
        tags: ['Documents'],
        security: [{ bearerAuth: [] }],
        headers: z.looseObject({ 'idempotency-key': z.string().optional() }),
        body: processBody,
        response: { 202: processAccepted, 200: processAccepted, ...errorResponses(402, 404, 428) },
      },
    },
    async (request, reply) => {
      const key = authOf(request);
      const idempotencyKey = idempotencyKeyOf(request, request.body.idempotency_key);
      const result = unwrap(
        await processDocument(ctx, { key, idempotencyKey, rawBody: request.body as Record<string, unknown>, request: request.body, traceId: String(request.id) }),
      );
      const body = result.body as z.infer<typeof processAccepted>;
      if (result.replay) return reply.code(200).header('idempotent-replayed', 'true').send({ ...body, idempotent_replay: true });
      return reply.code(202).send(body);
    },
  );
};
