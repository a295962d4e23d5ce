import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { decideCase } from '../../domain/cases/decide-case.ts';
import { readCaseRecord } from '../../domain/cases/read-case.ts';
import { unwrap } from '../../domain/errors.ts';
import { authOf } from '../plugins/authenticate.ts';
import { caseIdParams, caseRecordSchema } from '../schemas/case-record.ts';
import { errorResponses } from '../schemas/error.ts';

const decisionBody = z
  .strictObject({
    decision: z.enum(['approve', 'reject']).meta({ description: 'approve → case_status approved; reject → rejected.' }),
    reason: z.string().trim().min(1).max(2000).optional().meta({ description: 'Why; kept with the case and printed in the case file.' }),
  })
  .meta({ example: { decision: 'approve', reason: 'Pay stub verified against the employer.' } });

/** POST /api/v1/cases/{case_id}/decision — an operator decision on a case in review. */
export const decideCaseRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/api/v1/cases/:case_id/decision',
    {
      config: { auth: 'cases:write' },
      schema: {
        operationId: 'decideCase',
        summary: 'Approve or reject a case in review',
        description: 'Completes a case whose runtime_status is ready_for_review and emits v1.case.completed, which starts the handoff. Any other status answers 400.',
        tags: ['Cases'],
        security: [{ bearerAuth: [] }],
        params: caseIdParams,
        body: decisionBody,
        response: { 200: caseRecordSchema, ...errorResponses(404) },
      },
    },
    async (request) => {
      const key = authOf(request);
      unwrap(
        await decideCase(ctx, {
          tenant: key,
          caseId: request.params.case_id,
          decision: request.body.decision,
          reason: request.body.reason ?? null,
          actor: key.keyId,
          cause: { traceId: String(request.id), idempotencyKey: null },
        }),
      );
      return unwrap(await readCaseRecord(ctx, { tenant: key, caseId: request.params.case_id }));
    },
  );
};
