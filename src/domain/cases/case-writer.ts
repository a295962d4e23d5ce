import type { Deps } from '../deps.ts';
import { tenantOfRow, type Tenant } from '../../ports/tenant.ts';
import { lockCase, lockCaseUnscoped, updateCaseIfStatus, type CaseRow } from '../../storage/cases.ts';
import { toJsonb } from '../../storage/json.ts';
import type { Tx } from '../../storage/schema.ts';
import type { CaseStatus, GateRuleResult, RuntimeStatus } from './case-state.ts';
import type { ActionEnqueuer, Cause, WebhookEnqueuer } from '../../ports/enqueuers.ts';
import { recordCaseEvent } from './case-events.ts';
import { canTransition, IllegalTransitionError } from './state-machine.ts';

export type WriterDeps = Pick<Deps, 'clock' | 'ids'> & { enqueueWebhook: WebhookEnqueuer; enqueueActions: ActionEnqueuer };

export interface TransitionPatch {
  caseStatus?: CaseStatus;
  decisionReason?: string | null;
  currentNodeId?: string | null;
  currentGateId?: string | null;
  gateResults?: GateRuleResult[];
}

/**
 * The only way a case's runtime_status changes. Refuses any move not in the transition table,
 * writes the new status with the time it changed, and records `case.status_changed` — in the
 * caller's transaction, so the change and its event commit together.
 */
export async function transitionCase(
  tx: Tx,
  deps: WriterDeps,
  input: { row: CaseRow; to: RuntimeStatus; patch?: TransitionPatch; cause: Cause },
): Promise<CaseRow> {
  const { row, to, patch = {}, cause } = input;
  if (!canTransition(row.runtime_status, to)) throw new IllegalTransitionError(row.runtime_status, to);
  const now = deps.clock.now();
  const updated = await updateCaseIfStatus(tx, tenantOfRow(row), row.case_id, row.runtime_status, {
      runtime_status: to,
      status_changed_at: now,
      updated_at: now,
      ...(patch.caseStatus !== undefined ? { case_status: patch.caseStatus, completed_at: to === 'complete' ? now : null } : {}),
      ...(patch.decisionReason !== undefined ? { decision_reason: patch.decisionReason } : {}),
      ...(patch.currentNodeId !== undefined ? { current_node_id: patch.currentNodeId } : {}),
      ...(patch.currentGateId !== undefined ? { current_gate_id: patch.currentGateId } : {}),
      ...(patch.gateResults !== undefined ? { gate_results: toJsonb(patch.gateResults) } : {}),
    });
  // The row is locked by the caller; a status that changed under us means the caller did not lock it.
  if (!updated) throw new Error(`case ${row.case_id} changed status concurrently; lock it before transitioning`);
  await recordCaseEvent(tx, deps, { caseRow: updated, eventType: 'case.status_changed', data: { from: row.runtime_status, to }, cause });
  return updated;
}

/** Locks a case row of the workspace for the rest of the transaction; another workspace's case is undefined. */
export async function lockCaseRow(tx: Tx, input: { tenant: Tenant; caseId: string }): Promise<CaseRow | undefined> {
  return lockCase(tx, input.tenant, input.caseId);
}

/** Locks a case row by id alone, for workers and sweeps holding a claimed job's or session's case id. */
export async function lockCaseRowUnscoped(tx: Tx, input: { caseId: string }): Promise<CaseRow | undefined> {
  return lockCaseUnscoped(tx, input.caseId);
}
