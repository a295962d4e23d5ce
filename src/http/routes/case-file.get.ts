import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../app-context.ts';
import { loadCaseStateUnscoped } from '../../domain/cases/load-case.ts';
import { AppError } from '../../domain/errors.ts';
import { buildCasePackage } from '../../domain/package/case-package.ts';
import { renderCaseFilePdf } from '../../domain/package/case-file-pdf.ts';
import { verifyCaseFileToken } from '../../domain/package/case-file-token.ts';
import { listCaseEvents } from '../../storage/case-events.ts';

/**
 * `{app_url}/case-files/{case_id}?token=…`: the PDF case file behind the package's signed link.
 * The token is the credential (no API key): forged, foreign or expired tokens are refused.
 */
export const caseFileRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  if (!ctx.config.appUrl) return;
  const prefix = new URL(ctx.config.appUrl).pathname.replace(/\/+$/, '');
  app.get(
    `${prefix}/case-files/:case_id`,
    {
      // No API key: the signed token in the link is the credential, checked below.
      config: { auth: 'public' },
      schema: {
        hide: true,
        params: z.object({ case_id: z.string().min(1).max(100) }),
        querystring: z.object({ token: z.string().max(200).optional() }),
      },
    },
    async (request, reply) => {
      const { case_id: caseId } = request.params;
      const token = request.query.token;
      if (!token) throw new AppError('forbidden', 'This case file link has no token.');
      const check = verifyCaseFileToken(ctx.secret, caseId, token, ctx.clock.now());
      if (!check.ok) {
        throw new AppError(
          'forbidden',
          check.reason === 'expired'
            ? 'This case file link has expired; read the package again for a fresh link.'
            : 'This case file link is not valid.',
        );
      }
      const state = await loadCaseStateUnscoped(ctx.db, caseId);
      if (!state) throw new AppError('not_found', `No case ${caseId}.`);
      const { events } = await listCaseEvents(ctx.db, caseId, 0, 10_000);
      const now = ctx.clock.now();
      const pdf = await renderCaseFilePdf(
        state,
        buildCasePackage(state, null),
        events.map((e) => ({ cursor: e.cursor, event_type: e.event_type, created_at: e.created_at.toISOString() })),
        now,
      );
      return reply
        .header('content-type', 'application/pdf')
        .header('content-disposition', `inline; filename="case-${caseId}.pdf"`)
        .header('cache-control', 'private, no-store')
        .send(Buffer.from(pdf));
    },
  );
};
