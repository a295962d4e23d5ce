import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { correctFact } from '../../domain/cases/correct-fact.ts';
import { readCaseRecord } from '../../domain/cases/read-case.ts';
import { unwrap } from '../../domain/errors.ts';
import { authOf } from '../plugins/authenticate.ts';
import { factSchema } from '../schemas/case-record.ts';
import { errorResponses } from '../schemas/error.ts';
import { exampleFact } from '../schemas/examples.ts';

const correctionBody = z
  .strictObject({
    value: z.string().trim().min(1).max(2000).nullable().meta({ description: 'The corrected value; null clears it.' }),
    status: z.enum(['resolved', 'needs_input', 'failed']).optional().meta({ description: 'Default: resolved with a value, needs_input without.' }),
    reason: z.string().trim().min(1).max(2000).optional(),
  })
  .meta({ example: { value: '2026-11-14', reason: 'Date misread; checked against the scan.' } });

/** PATCH /api/v1/cases/{case_id}/facts/{fact_id} — an operator correction, kept with its history. */
export const correctFactRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.patch(
    '/api/v1/cases/:case_id/facts/:fact_id',
    {
      config: { auth: 'cases:write' },
      schema: {
        operationId: 'correctFact',
        summary: 'Correct a fact',
        description: 'Sets the fact with source operator. The previous value, status and source are kept in the correction history; a fact.corrected event is recorded.',
        tags: ['Cases'],
        security: [{ bearerAuth: [] }],
        params: z.object({ case_id: z.string().min(1).max(100), fact_id: z.string().min(1).max(64) }),
        body: correctionBody,
        response: {
          200: z.object({ correction_id: z.string(), fact: factSchema }).meta({ id: 'FactCorrection', example: { correction_id: 'fc_4Rt5Yu6Io7Pa8Sd9Fg0Hj1Kl', fact: { ...exampleFact, value: '2500.00', source: 'operator', evidence: [], provenance: [], candidate_id: null, anchor_match_quality: null } } }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const key = authOf(request);
      const { case_id: caseId, fact_id: factId } = request.params;
      const corrected = unwrap(
        await correctFact(ctx, {
          tenant: key,
          caseId,
          factId,
          value: request.body.value,
          ...(request.body.status ? { status: request.body.status } : {}),
          reason: request.body.reason ?? null,
          actor: key.keyId,
          cause: { traceId: String(request.id), idempotencyKey: null },
        }),
      );
      const record = unwrap(await readCaseRecord(ctx, { tenant: key, caseId }));
      return { correction_id: corrected.correction_id, fact: record.workspace.facts.find((f) => f.fact_id === factId)! };
    },
  );
};
