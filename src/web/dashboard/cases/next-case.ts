import { z } from 'zod';
import { QUEUE_CATEGORIES, type QueueCategory } from '../../../domain/cases/queue.ts';
import { nextCaseInTab } from '../../../domain/console/next-case.ts';
import { queryText } from '../../page-route.ts';
import { operatorSessionOf, tenantOf } from '../context.ts';
import { dashboardRoute } from '../route.ts';

/**
 * GET /dashboard/cases/next?category=review&after=<case_id>: "Next case" and `n` after a decision
 * (issue 27 §3): on to the oldest case of the same tab that is not someone else's, or back to the
 * tab when none is left.
 */
export const nextCasePage = dashboardRoute({
  method: 'GET',
  url: '/cases/next',
  auth: 'operator',
  query: z.object({ category: queryText, after: queryText }),
  handler: async ({ request, reply, query, deps }) => {
    const category: QueueCategory = (QUEUE_CATEGORIES as readonly string[]).includes(query.category ?? '') ? (query.category as QueueCategory) : 'review';
    const next = await nextCaseInTab(deps.ctx, { tenant: tenantOf(request), category, leaving: query.after ?? '', operatorId: operatorSessionOf(request).operator.operator_id });
    return reply.redirect(next ? `/dashboard/cases/${next}` : `/dashboard/cases?category=${category}&notice=queue_empty`, 303);
  },
});
