import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { caseNotFound } from '../../domain/cases/read-case.ts';
import { loadCaseState } from '../../domain/cases/load-case.ts';
import { unwrap } from '../../domain/errors.ts';
import { buildCasePackage } from '../../domain/package/case-package.ts';
import { caseFileUrl, signCaseFileToken } from '../../domain/package/case-file-token.ts';
import { authOf } from '../plugins/authenticate.ts';
import { caseIdParams, documentSchema, evidenceSchema, provenanceSchema } from '../schemas/case-record.ts';
import { errorResponses } from '../schemas/error.ts';
import { examplePackage } from '../schemas/examples.ts';

const packageSchema = z
  .object({
    case_id: z.string(),
    case_file_url: z.string().nullable().meta({ description: 'Signed link to the PDF case file, valid one hour; null when this deployment cannot sign links.' }),
    facts: z.record(
      z.string(),
      z.object({
        fact_label: z.string(),
        status: z.enum(['pending', 'resolved', 'needs_input', 'failed']),
        value: z.string().nullable(),
        source: z.string().nullable(),
        anchor_match_quality: z.number().nullable(),
        reason_codes: z.array(z.string()),
        evidence: z.array(evidenceSchema),
        provenance: z.array(provenanceSchema),
      }),
    ),
    documents: z.array(documentSchema),
    case_type_id: z.string(),
    workflow_version: z.string(),
    runtime_status: z.string(),
    case_status: z.string().nullable(),
    decision_reason: z.string().nullable(),
    completed_at: z.string().nullable(),
    handoff: z.object({ handoff_state: z.string(), delivery_id: z.string().nullable(), acknowledged_at: z.string().nullable() }).nullable(),
    contents_sha256: z.string().meta({ description: 'SHA-256 of the canonical JSON of the package contents; printed in the case file.' }),
  })
  .meta({ id: 'CasePackage', description: 'The review-ready package (spec §2.7).', example: examplePackage });

/** GET /api/v1/cases/{case_id}/package (spec §4.3). */
export const getCasePackageRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/v1/cases/:case_id/package',
    {
      config: { auth: 'cases:read' },
      schema: {
        operationId: 'getCasePackage',
        summary: 'Read the review-ready package',
        tags: ['Cases'],
        security: [{ bearerAuth: [] }],
        params: caseIdParams,
        response: { 200: packageSchema, ...errorResponses(404) },
      },
    },
    async (request) => {
      const key = authOf(request);
      const state = await loadCaseState(ctx, { tenant: { orgId: key.orgId, environment: key.environment }, caseId: request.params.case_id });
      if (!state) return unwrap(caseNotFound(request.params.case_id));
      const appUrl = ctx.config.appUrl;
      const url = appUrl ? caseFileUrl(appUrl, state.caseId, signCaseFileToken(ctx.secret, state.caseId, ctx.clock.now())) : null;
      return buildCasePackage(state, url);
    },
  );
};
