import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../app-context.ts';
import { readCaseRecord } from '../../domain/cases/read-case.ts';
import { unwrap } from '../../domain/errors.ts';
import { authOf } from '../plugins/authenticate.ts';
import { caseIdParams, caseRecordSchema } from '../schemas/case-record.ts';
import { errorResponses } from '../schemas/error.ts';

/** GET /api/v1/cases/{case_id} (spec §4.1). */
export const getCaseRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/v1/cases/:case_id',
    {
      config: { auth: 'cases:read' },
      schema: {
        operationId: 'getCase',
        summary: 'Read a case',
        description: 'The current, canonical case record: read it after a webhook for the state to act on.',
        tags: ['Cases'],
        security: [{ bearerAuth: [] }],
        params: caseIdParams,
        response: { 200: caseRecordSchema, ...errorResponses(404) },
      },
    },
    async (request) => unwrap(await readCaseRecord(ctx.db, authOf(request), request.params.case_id)),
  );
};
