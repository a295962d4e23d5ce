import type { Tenant } from '../../ports/tenant.ts';
import { findCaseSnapshot, updateCaseRow } from '../../storage/cases.ts';
import { toJsonb } from '../../storage/json.ts';
import type { Tx } from '../../storage/schema.ts';
import type { CaseState } from './case-state.ts';
import { renderCaseRecord } from './case-record.ts';
import { stateOfSnapshot } from './load-case.ts';

/**
 * Writes the queue position computed by the projection function. Called at the end of every unit
 * of work that changes a case, so the stored queue (which the list filters and sorts on) and the
 * live case read cannot disagree.
 */
export async function refreshQueueProjection(tx: Tx, input: { tenant: Tenant; caseId: string }): Promise<void> {
  const { tenant, caseId } = input;
  const snapshot = await findCaseSnapshot(tx, tenant, caseId);
  if (!snapshot) return;
  const queue = queueColumnsOf(await stateOfSnapshot(tx, snapshot));
  await updateCaseRow(tx, tenant, caseId, { ...queue, queue_row: toJsonb(queue.queue_row) });
}

/** The stored queue columns of a case in a given state: what refreshQueueProjection writes. */
export function queueColumnsOf(state: CaseState): { queue_category: string; queue_status: string; queue_row: Record<string, unknown> } {
  const { queue_row } = renderCaseRecord(state);
  return { queue_category: queue_row.queue_category, queue_status: queue_row.queue_status, queue_row };
}
