import { z } from 'zod';
import { assignCase } from '../../../domain/cases/assign-case.ts';
import { AppError } from '../../../domain/errors.ts';
import { formText } from '../../page-route.ts';
import { operatorSessionOf, tenantOf } from '../context.ts';
import { dashboardRoute } from '../route.ts';
import { caseParams, causeOf } from './case-page.ts';

/** POST /dashboard/cases/{case_id}/assignment: "Assign to me" (`assign=me`) or "Unassign" (`assign=nobody`). */
export const assignmentPost = dashboardRoute({
  method: 'POST',
  url: '/cases/:case_id/assignment',
  auth: 'operator',
  params: caseParams,
  body: z.object({ assign: formText }),
  handler: async ({ request, reply, params, body, deps }) => {
    if (body.assign !== 'me' && body.assign !== 'nobody') throw new AppError('invalid_request', 'Choose Assign to me or Unassign.');
    const me = operatorSessionOf(request).operator.operator_id;
    const done = await assignCase(deps.ctx, { tenant: tenantOf(request), caseId: params.case_id, assignee: body.assign === 'me' ? me : null, actor: me, cause: causeOf(request) });
    if (!done.ok) throw AppError.from(done);
    return reply.redirect(`/dashboard/cases/${params.case_id}?notice=${body.assign === 'me' ? 'assigned' : 'unassigned'}`, 303);
  },
});
