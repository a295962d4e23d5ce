import type { Deps } from '../deps.ts';
import type { CaseRow } from '../../storage/cases.ts';
import { lockCallOfCase, requeueFailedCall } from '../../storage/connector-calls.ts';
import { inTransactionResult } from '../../storage/unit-of-work.ts';
import { recordCaseEvent } from '../cases/case-events.ts';
import { renderActions } from '../cases/case-record.ts';
import { lockCaseRow, type WriterDeps } from '../cases/case-writer.ts';
import { loadCaseStateUnscoped } from '../cases/load-case.ts';
import { caseNotFound } from '../cases/read-case.ts';
import { fail, ok, type Result } from '../errors.ts';

/**
 * POST /api/v1/cases/{id}/actions/{node_id}/retry: a failed call goes back to the queue with a
 * fresh budget, the same Idempotency-Key, and inputs rendered again when it is sent.
 */
export async function retryAction(
  deps: WriterDeps & Pick<Deps, 'db'>,
  input: { orgId: string; environment: CaseRow['environment']; caseId: string; nodeId: string; actor: string },
): Promise<Result<ReturnType<typeof renderActions>[number]>> {
  const outcome = await inTransactionResult(deps.db, async (tx) => {
    const caseRow = await lockCaseRow(tx, { tenant: input, caseId: input.caseId });
    if (!caseRow) return caseNotFound(input.caseId);
    const call = await lockCallOfCase(tx, input, input.caseId, input.nodeId);
    if (!call) return fail('not_found', `Case ${input.caseId} has no started action "${input.nodeId}".`);
    if (call.status !== 'failed') return fail('invalid_request', `Action "${input.nodeId}" is ${call.status}: only a failed action can be retried.`);
    await requeueFailedCall(tx, input, call.call_id, deps.clock.now());
    await recordCaseEvent(tx, deps, {
      caseRow,
      eventType: 'connector.call_retried',
      data: { node_id: input.nodeId, actor: input.actor },
      cause: { traceId: `retry:${call.call_id}`, idempotencyKey: null },
    });
    return ok(null);
  });
  if (!outcome.ok) return outcome;
  const state = await loadCaseStateUnscoped(deps, { caseId: input.caseId });
  const action = state && renderActions(state).find((a) => a.node_id === input.nodeId);
  return action ? ok(action) : caseNotFound(input.caseId);
}
