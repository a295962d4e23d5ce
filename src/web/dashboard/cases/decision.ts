import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { decideCase } from '../../../domain/cases/decide-case.ts';
import { readConsoleCase, type ConsoleCase } from '../../../domain/console/case-view.ts';
import { AppError, unwrap } from '../../../domain/errors.ts';
import { formText } from '../../page-route.ts';
import { sendPage } from '../../render.ts';
import type { ErrorItem } from '../../ui/components.ts';
import { operatorSessionOf, tenantOf, viewerOf, type DashboardRouteDeps } from '../context.ts';
import { dashboardPage } from '../layout.ts';
import { dashboardRoute } from '../route.ts';
import { caseParams, causeOf, MAX_TEXT, selectionOf, showCase } from './case-page.ts';
import { rejectConfirmationBody } from './case-sections.ts';

/** "Reject this case?" on a page of ours, with the reason, instead of the browser's confirm(). */
function rejectConfirmation(request: FastifyRequest, deps: DashboardRouteDeps, c: ConsoleCase, reason: string, from: string) {
  const viewer = viewerOf(request, deps);
  return dashboardPage({ viewer, title: 'Reject this case?', nav: 'cases', children: rejectConfirmationBody(viewer, c, reason, from) });
}

/** POST /dashboard/cases/{case_id}/decision: approve, or reject with a reason once confirmed. */
export const decisionPost = dashboardRoute({
  method: 'POST',
  url: '/cases/:case_id/decision',
  auth: 'operator',
  params: caseParams,
  body: z.object({ decision: formText, reason: formText, confirmed: formText, from: formText }),
  handler: async ({ request, reply, params, body, deps }) => {
    const caseId = params.case_id;
    const decision = body.decision;
    const reason = body.reason.trim();
    if (decision !== 'approve' && decision !== 'reject') throw new AppError('invalid_request', 'Choose Approve or Reject.');
    // Approving needs no reason (it is optional in the API too); rejecting needs one, and is
    // confirmed on a page of ours before anything happens (issue 27 §4).
    const errors: ErrorItem[] = [];
    if (decision === 'reject' && reason === '') errors.push({ href: 'decision-reason', text: 'Enter the reason you reject this case' });
    else if (reason.length > MAX_TEXT) errors.push({ href: 'decision-reason', text: `The reason must be ${MAX_TEXT} characters or fewer` });
    if (errors.length > 0) return showCase(request, reply, deps, caseId, selectionOf({}), { decision: { reason, errors } }, 400);
    if (decision === 'reject' && body.confirmed !== 'yes') {
      const c = unwrap(await readConsoleCase(deps.ctx, { tenant: tenantOf(request), caseId, selection: {} }));
      return sendPage(reply, rejectConfirmation(request, deps, c, reason, body.from));
    }
    const done = await decideCase(deps.ctx, { tenant: tenantOf(request), caseId, decision, reason: reason === '' ? null : reason, actor: operatorSessionOf(request).operator.operator_id, cause: causeOf(request) });
    if (!done.ok) {
      if (done.code !== 'invalid_request') throw AppError.from(done);
      return showCase(request, reply, deps, caseId, selectionOf({}), { decision: { reason, errors: [{ href: 'decision-reason', text: done.message }] } }, 409);
    }
    // The operator's own decision is in the Done tab's count when they go back to the queue.
    deps.doneCounts.forget(tenantOf(request));
    const from = selectionOf({ from: body.from }).from;
    return reply.redirect(`/dashboard/cases/${caseId}?notice=${done.value.case_status}${from ? `&from=${from}` : ''}`, 303);
  },
});
