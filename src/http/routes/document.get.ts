import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { readDocument } from '../../domain/cases/read-document.ts';
import { unwrap } from '../../domain/errors.ts';
import { authOf } from '../plugins/authenticate.ts';
import { documentDetailSchema } from '../schemas/case-record.ts';
import { errorResponses } from '../schemas/error.ts';

/** GET /api/v1/cases/{case_id}/documents/{doc_id} (contract §9). */
export const getDocumentRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/v1/cases/:case_id/documents/:doc_id',
    {
      config: { auth: 'cases:read' },
      schema: {
        operationId: 'getDocument',
        summary: 'Read a document and its page text',
        description:
          'The document (status, kind, MIME type, size, page count, failure reason) and its pages: the canonical text that evidence `location` offsets index, and the page size in the unit of evidence boxes. An erased document answers `status: "erased"` and no pages.',
        tags: ['Documents'],
        security: [{ bearerAuth: [] }],
        params: z.object({ case_id: z.string().min(1).max(100), doc_id: z.string().min(1).max(100) }),
        response: { 200: documentDetailSchema, ...errorResponses(404) },
      },
    },
    async (request) =>
      unwrap(await readDocument({ db: ctx.db }, { tenant: authOf(request), caseId: request.params.case_id, docId: request.params.doc_id })),
  );
};
