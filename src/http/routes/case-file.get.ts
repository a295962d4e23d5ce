import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { unwrap } from '../../domain/errors.ts';
import { readCaseFile } from '../../domain/package/case-file.ts';

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
      const caseId = request.params.case_id;
      const pdf = unwrap(await readCaseFile(ctx, { caseId, token: request.query.token }));
      return reply
        .header('content-type', 'application/pdf')
        .header('content-disposition', `inline; filename="case-${caseId}.pdf"`)
        .header('cache-control', 'private, no-store')
        .send(Buffer.from(pdf));
    },
  );
};
