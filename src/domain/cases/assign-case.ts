import type { Cause } from '../../ports/enqueuers.ts';
import type { Tenant } from '../../ports/tenant.ts';
import { findOperatorInOrg } from '../../storage/operators.ts';
import { updateCaseRow } from '../../storage/cases.ts';
import type { Db } from '../../storage/schema.ts';
import { inTransactionResult } from '../../storage/unit-of-work.ts';
import { fail, ok, type Result } from '../errors.ts';
import { recordCaseEvent } from './case-events.ts';
import { lockCaseRow, type WriterDeps } from './case-writer.ts';
import { caseNotFound } from './read-case.ts';

/**
 * Gives a case to an operator of its workspace, or takes it back (`assignee: null`), as
 * "Assign to me" does (issue 27 §3). Recorded on the case's events with the operator who did it,
 * so the timeline says who took it. A completed case is no longer anyone's work and is refused;
 * assigning a case to the operator it already has records nothing.
 */
export async function assignCase(
  deps: WriterDeps & { db: Db },
  input: { tenant: Tenant; caseId: string; assignee: string | null; actor: string; cause: Cause },
): Promise<Result<{ case_id: string; assigned_to: string | null }>> {
  return inTransactionResult(deps.db, async (tx) => {
    const row = await lockCaseRow(tx, { tenant: input.tenant, caseId: input.caseId });
    if (!row) return caseNotFound(input.caseId);
    if (row.runtime_status === 'complete') return fail('invalid_request', `Case ${row.case_id} is already complete: there is nothing left to assign.`);
    if (input.assignee !== null) {
      const operator = await findOperatorInOrg(tx, input.tenant.orgId, input.assignee);
      if (!operator || operator.disabled_at !== null) return fail('invalid_request', 'Cases can be assigned only to an active operator of this workspace.');
    }
    if (row.assigned_to === input.assignee) return ok({ case_id: row.case_id, assigned_to: row.assigned_to });
    const now = deps.clock.now();
    await updateCaseRow(tx, input.tenant, row.case_id, { assigned_to: input.assignee, assigned_at: input.assignee === null ? null : now });
    const caseRow = { ...row, assigned_to: input.assignee, assigned_at: input.assignee === null ? null : now };
    await recordCaseEvent(tx, deps, {
      caseRow,
      eventType: input.assignee === null ? 'case.unassigned' : 'case.assigned',
      data: input.assignee === null ? { previous: row.assigned_to, actor: input.actor } : { assignee: input.assignee, previous: row.assigned_to, actor: input.actor },
      cause: input.cause,
    });
    return ok({ case_id: row.case_id, assigned_to: input.assignee });
  });
}
