import { readConsolePackage } from '../../../domain/console/case-files.ts';
import { unwrap } from '../../../domain/errors.ts';
import { tenantOf } from '../context.ts';
import { dashboardRoute } from '../route.ts';
import { caseParams } from './case-page.ts';

/** GET /dashboard/cases/{case_id}/package: the case package as JSON, as the API gives it. */
export const packagePage = dashboardRoute({
  method: 'GET',
  url: '/cases/:case_id/package',
  auth: 'operator',
  params: caseParams,
  handler: async ({ request, reply, params, deps }) => {
    const pkg = unwrap(await readConsolePackage(deps.ctx, { tenant: tenantOf(request), caseId: params.case_id }));
    return reply.header('cache-control', 'private, no-store').type('application/json; charset=utf-8').send(JSON.stringify(pkg, null, 2));
  },
});
