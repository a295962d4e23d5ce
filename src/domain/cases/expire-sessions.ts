import { tenantOfRow } from '../../ports/tenant.ts';
import { findSessionUnscoped, selectExpiredOpenSessionsUnscoped, selectExpiredSessionsAwaitingFollowUpUnscoped, updateSessionRow } from '../../storage/cases.ts';
import { markOpenFollowUpsWithdrawn } from '../../storage/follow-up-questions.ts';
import type { Db } from '../../storage/schema.ts';
import { inTransaction } from '../../storage/unit-of-work.ts';
import { recordCaseEvent } from './case-events.ts';
import { lockCaseRowUnscoped, transitionCase, type WriterDeps } from './case-writer.ts';
import { scheduleGateEvaluation } from './evaluate-case.ts';

/**
 * Completes, as `abandoned`, cases whose session expired before the applicant submitted:
 * `v1.session.expired` then `v1.case.completed` with case_status abandoned. Returns how many it
 * closed; each case is its own transaction, so one failure does not hold back the rest.
 */
export async function expireSessions(deps: WriterDeps & { db: Db }, input: { batch?: number } = {}): Promise<number> {
  const batch = input.batch ?? 100;
  const now = deps.clock.now();
  const due = await selectExpiredOpenSessionsUnscoped(deps.db, now, batch);
  let closed = 0;
  for (const { session_id: sessionId, case_id: caseId } of due) {
    await inTransaction(deps.db, async (tx) => {
      const row = await lockCaseRowUnscoped(tx, { caseId });
      const session = await findSessionUnscoped(tx, sessionId);
      if (!row || !session || session.status !== 'open' || session.expires_at > now) return;
      await updateSessionRow(tx, tenantOfRow(row), sessionId, { status: 'expired' });
      const cause = { traceId: `sweep:session-expiry:${sessionId}`, idempotencyKey: null, sessionId };
      await recordCaseEvent(tx, deps, {
        caseRow: row,
        eventType: 'session.expired',
        data: { session_id: sessionId, expired_at: session.expires_at.toISOString() },
        cause,
      });
      if (row.runtime_status === 'intake_in_progress' || row.runtime_status === 'processing') {
        const done = await transitionCase(tx, deps, { row, to: 'complete', patch: { caseStatus: 'abandoned' }, cause });
        await recordCaseEvent(tx, deps, { caseRow: done, eventType: 'case.completed', data: { case_status: 'abandoned' }, cause });
      }
      closed++;
    });
  }
  return closed + (await handFollowUpsToOperators(deps, now, batch));
}

/**
 * A submitted intake whose session expired while follow-up questions were open can no longer be
 * answered by the applicant: the questions are withdrawn and the gates run again, which sends the
 * case to operator review (`needs_input_without_applicant`) instead of leaving it waiting forever.
 */
async function handFollowUpsToOperators(deps: WriterDeps & { db: Db }, now: Date, batch: number): Promise<number> {
  const waiting = await selectExpiredSessionsAwaitingFollowUpUnscoped(deps.db, now, batch);
  let moved = 0;
  for (const { session_id: sessionId, case_id: caseId } of waiting) {
    await inTransaction(deps.db, async (tx) => {
      const row = await lockCaseRowUnscoped(tx, { caseId });
      if (row?.runtime_status !== 'intake_in_progress') return;
      const withdrawn = await markOpenFollowUpsWithdrawn(tx, tenantOfRow(row), caseId);
      const cause = { traceId: `sweep:follow-up-expiry:${sessionId}`, idempotencyKey: null, sessionId };
      await recordCaseEvent(tx, deps, { caseRow: row, eventType: 'follow_up.expired', data: { session_id: sessionId, fact_ids: withdrawn }, cause });
      await scheduleGateEvaluation(tx, deps, { row, cause });
      moved++;
    });
  }
  return moved;
}
