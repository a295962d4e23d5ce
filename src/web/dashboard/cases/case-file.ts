import { renderConsoleCaseFile } from '../../../domain/console/case-files.ts';
import { unwrap } from '../../../domain/errors.ts';
import { tenantOf } from '../context.ts';
import { dashboardRoute } from '../route.ts';
import { caseParams } from './case-page.ts';

/** GET /dashboard/cases/{case_id}/case-file: the case file as a PDF, shown in the browser. */
export const caseFilePage = dashboardRoute({
  method: 'GET',
  url: '/cases/:case_id/case-file',
  auth: 'operator',
  params: caseParams,
  handler: async ({ request, reply, params, deps }) => {
    const caseId = params.case_id;
    const pdf = unwrap(await renderConsoleCaseFile(deps.ctx, { tenant: tenantOf(request), caseId }));
    return reply
      .header('cache-control', 'private, no-store')
      .header('content-disposition', `inline; filename="case-${caseId}.pdf"`)
      .type('application/pdf')
      .send(Buffer.from(pdf));
  },
});
