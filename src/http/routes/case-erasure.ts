import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { AppError, unwrap } from '../../domain/errors.ts';
import { eraseCase, eraseDocument } from '../../domain/erasure/erase.ts';
import { authOf } from '../plugins/authenticate.ts';
import { caseIdParams } from '../schemas/case-record.ts';
import { errorResponses } from '../schemas/error.ts';

const caseErased = z
  .object({ case_id: z.string(), erased_document_ids: z.array(z.string()), erased_at: z.string() })
  .meta({ id: 'CaseErasure', example: { case_id: 'case_8Kq2mZr4Tn6VwXy0Ab1Cd2Ef', erased_document_ids: ['doc_1Ab2Cd3Ef4Gh5Ij6Kl7Mn8Op'], erased_at: '2026-11-22T10:00:00.000Z' } });
const documentErased = z
  .object({ doc_id: z.string(), case_id: z.string(), status: z.literal('erased'), erased_at: z.string() })
  .meta({ id: 'DocumentErasure', example: { doc_id: 'doc_1Ab2Cd3Ef4Gh5Ij6Kl7Mn8Op', case_id: 'case_8Kq2mZr4Tn6VwXy0Ab1Cd2Ef', status: 'erased', erased_at: '2026-11-22T10:00:00.000Z' } });

/**
 * Erasure (contract §9): POST /api/v1/cases/{case_id}/erasure and
 * DELETE /api/v1/cases/{case_id}/documents/{doc_id}, scope cases:erase. Both are repeatable.
 */
export const erasureRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/api/v1/cases/:case_id/erasure',
    {
      config: { auth: 'cases:erase' },
      schema: {
        operationId: 'eraseCase',
        summary: 'Erase the document-derived data of a case',
        description: 'Destroys every document’s bytes and page text and the values, quotes and evidence derived from them. Ids, statuses, timestamps and events remain. Repeatable.',
        tags: ['Documents'],
        security: [{ bearerAuth: [] }],
        params: caseIdParams,
        response: { 200: caseErased, ...errorResponses(404) },
      },
    },
    async (request) =>
      unwrap(await eraseCase(ctx, { tenant: authOf(request), caseId: request.params.case_id, actor: authOf(request).keyId, cause: { traceId: String(request.id), idempotencyKey: null } })),
  );

  app.delete(
    '/api/v1/cases/:case_id/documents/:doc_id',
    {
      config: { auth: 'cases:erase' },
      schema: {
        operationId: 'eraseDocument',
        summary: 'Erase one document',
        description: 'Destroys the document’s bytes, its page text and the fact values, quotes and evidence derived from it. Repeatable.',
        tags: ['Documents'],
        security: [{ bearerAuth: [] }],
        params: z.object({ case_id: z.string().min(1).max(100), doc_id: z.string().min(1).max(100) }),
        response: { 200: documentErased, ...errorResponses(404) },
      },
    },
    async (request) =>
      unwrap(
        await eraseDocument(ctx, {
          tenant: authOf(request),
          caseId: request.params.case_id,
          docId: request.params.doc_id,
          actor: authOf(request).keyId,
          cause: { traceId: String(request.id), idempotencyKey: null },
        }),
      ),
  );

  const missingDocId = async () => {
    throw new AppError('missing_doc_id', 'The document id path segment is empty: use /api/v1/cases/{case_id}/documents/{doc_id}.');
  };
  app.delete('/api/v1/cases/:case_id/documents/', { config: { auth: 'cases:erase' }, schema: { hide: true } }, missingDocId);
  app.delete('/api/v1/cases/:case_id/documents', { config: { auth: 'cases:erase' }, schema: { hide: true } }, missingDocId);
  const missingCaseId = async () => {
    throw new AppError('missing_case_id', 'The case id path segment is empty.');
  };
  app.post('/api/v1/cases//erasure', { config: { auth: 'cases:erase' }, schema: { hide: true } }, missingCaseId);
  app.delete('/api/v1/cases//documents/:doc_id', { config: { auth: 'cases:erase' }, schema: { hide: true } }, missingCaseId);
};
