import { z } from 'zod';
import { correctFact } from '../../../domain/cases/correct-fact.ts';
import { AppError } from '../../../domain/errors.ts';
import { formText } from '../../page-route.ts';
import type { ErrorItem } from '../../ui/components.ts';
import { operatorSessionOf, tenantOf } from '../context.ts';
import { dashboardRoute } from '../route.ts';
import { causeOf, MAX_TEXT, selectionOf, showCase } from './case-page.ts';

const factParams = z.object({ case_id: z.string().min(1).max(100), fact_id: z.string().min(1).max(64) });

/** The case page with a fact selected and scrolled to. */
export const factOnCasePath = (caseId: string, factId: string, notice?: string) =>
  `/dashboard/cases/${encodeURIComponent(caseId)}?fact=${encodeURIComponent(factId)}${notice ? `&notice=${notice}` : ''}#fact-${encodeURIComponent(factId)}`;

/**
 * GET /dashboard/cases/{case_id}/facts/{fact_id}: the address a correction with problems is shown
 * at, opened again (a reload, a bookmark, a shared link). It leads to the case page with the fact
 * selected, so the address never answers 404 (issue 27 §6).
 */
export const factPage = dashboardRoute({
  method: 'GET',
  url: '/cases/:case_id/facts/:fact_id',
  auth: 'operator',
  params: factParams,
  handler: async ({ reply, params }) => reply.redirect(factOnCasePath(params.case_id, params.fact_id), 303),
});

/** POST /dashboard/cases/{case_id}/facts/{fact_id}: an operator's correction of a fact, with its reason. */
export const correctFactPost = dashboardRoute({
  method: 'POST',
  url: '/cases/:case_id/facts/:fact_id',
  auth: 'operator',
  params: factParams,
  body: z.object({ value: formText, reason: formText }),
  handler: async ({ request, reply, params, body, deps }) => {
    const { case_id: caseId, fact_id: factId } = params;
    const value = body.value.trim();
    const reason = body.reason.trim();
    const errors: ErrorItem[] = [];
    if (value === '') errors.push({ href: `value-${factId}`, text: 'Enter the correct value' });
    else if (value.length > MAX_TEXT) errors.push({ href: `value-${factId}`, text: `The value must be ${MAX_TEXT} characters or fewer` });
    if (reason === '') errors.push({ href: `reason-${factId}`, text: 'Enter the reason for the correction' });
    else if (reason.length > MAX_TEXT) errors.push({ href: `reason-${factId}`, text: `The reason must be ${MAX_TEXT} characters or fewer` });
    const sel = { ...selectionOf({}), fact: factId };
    if (errors.length > 0) return showCase(request, reply, deps, caseId, sel, { correction: { factId, value, reason, errors } }, 400);
    const done = await correctFact(deps.ctx, { tenant: tenantOf(request), caseId, factId, value, reason, actor: operatorSessionOf(request).operator.operator_id, cause: causeOf(request) });
    if (!done.ok) {
      if (done.code !== 'invalid_request') throw AppError.from(done);
      return showCase(request, reply, deps, caseId, sel, { correction: { factId, value, reason, errors: [{ href: `value-${factId}`, text: done.message }] } }, 400);
    }
    return reply.redirect(factOnCasePath(caseId, factId, 'corrected'), 303);
  },
});
