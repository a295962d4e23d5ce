import type { Db } from '../../storage/schema.ts';
import { inTransactionResult } from '../../storage/unit-of-work.ts';
import { fail, ok, type Result } from '../errors.ts';
import { recordCaseEvent } from './case-events.ts';
import type { Cause } from '../../ports/enqueuers.ts';
import { lockCaseRow, transitionCase, type WriterDeps } from './case-writer.ts';
import type { Tenant } from '../../ports/tenant.ts';
import { caseNotFound } from './read-case.ts';

export type Decision = 'approve' | 'reject';

/**
 * An operator's decision on a case in review: `complete` with case_status approved or rejected,
 * and `v1.case.completed`, which starts the handoff. A case not in review is refused with its
 * current status in the message.
 */
export async function decideCase(
  deps: WriterDeps & { db: Db },
  input: { tenant: Tenant; caseId: string; decision: Decision; reason: string | null; actor: string; cause: Cause },
): Promise<Result<{ case_id: string; case_status: 'approved' | 'rejected' }>> {
  const { tenant } = input;
  return inTransactionResult(deps.db, async (tx) => {
    const row = await lockCaseRow(tx, { tenant, caseId: input.caseId });
    if (!row) return caseNotFound(input.caseId);
    if (row.runtime_status !== 'ready_for_review') {
      return fail(
        'invalid_request',
        row.runtime_status === 'complete'
          ? `Case ${row.case_id} is already complete (${row.case_status ?? 'no status'}).`
          : `Case ${row.case_id} is not awaiting review: its runtime_status is ${row.runtime_status}.`,
      );
    }
    const caseStatus = input.decision === 'approve' ? 'approved' : 'rejected';
    const done = await transitionCase(tx, deps, { row, to: 'complete', patch: { caseStatus, decisionReason: input.reason }, cause: input.cause });
    await recordCaseEvent(tx, deps, { caseRow: done, eventType: 'case.decided', data: { decision: input.decision, actor: input.actor }, cause: input.cause });
    await recordCaseEvent(tx, deps, { caseRow: done, eventType: 'case.completed', data: { case_status: caseStatus }, cause: input.cause });
    return ok({ case_id: row.case_id, case_status: caseStatus });
  });
}
