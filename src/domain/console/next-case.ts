import type { Tenant } from '../../ports/tenant.ts';
import { listQueueRows } from '../../storage/queue.ts';
import type { Executor } from '../../storage/schema.ts';
import type { QueueCategory } from '../cases/queue.ts';

/** How far down a tab "Next case" looks past cases others have taken before giving up. */
const LOOK_AHEAD = 50;

/**
 * The case an operator should open after deciding one (issue 27 §3, "Next case" and `n`): the
 * oldest case of the same tab, the one just left aside, and not taken by another operator (theirs
 * or nobody's). Undefined when the tab holds nothing else for them.
 */
export async function nextCaseInTab(
  deps: { db: Executor },
  input: { tenant: Tenant; category: QueueCategory; leaving: string; operatorId: string },
): Promise<string | undefined> {
  const { rows } = await listQueueRows(deps.db, { orgId: input.tenant.orgId, environment: input.tenant.environment, queueCategory: input.category, limit: LOOK_AHEAD });
  return rows.find((r) => r.case_id !== input.leaving && (r.assigned_to === null || r.assigned_to === input.operatorId))?.case_id;
}
