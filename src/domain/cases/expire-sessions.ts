import { tenantOfRow } from '../../ports/tenant.ts';
import { lockSessionUnscoped, selectExpiredOpenSessionsUnscoped, selectExpiredSessionsAwaitingFollowUpUnscoped, updateSessionRow, type CaseRow, type SessionRow } from '../../storage/cases.ts';
import { markOpenFollowUpsWithdrawn } from '../../storage/follow-up-questions.ts';
import type { Db, Tx } from '../../storage/schema.ts';
import { inTransaction } from '../../storage/unit-of-work.ts';
import { recordCaseEvent } from './case-events.ts';
import type { Cause } from '../../ports/enqueuers.ts';
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
      const session = await lockSessionUnscoped(tx, sessionId);
      const row = await lockCaseRowUnscoped(tx, { caseId });
      if (!row || !session || session.status !== 'open' || session.expires_at > now) return;
      const cause = { traceId: `sweep:session-expiry:${sessionId}`, idempotencyKey: null, sessionId };
      await expireUnsubmittedSession(tx, deps, { row, session, expiredAt: session.expires_at, cause });
      closed++;
    });
  }
  return closed + (await handFollowUpsToOperators(deps, now, batch));
}

/**
 * The end of a session the applicant never submitted, whether its time ran out (the sweep) or the
 * integrator expired it (`POST /api/v1/sessions/{id}/expire`): the session becomes `expired` as of
 * `expiredAt`, `v1.session.expired` goes out, and a case still in intake (`intake_in_progress`, or
 * `processing` an upload) completes as `abandoned` with `v1.case.completed`. An intake never
 * started and one half done end the same way: the case has no submission to evaluate either way.
 *
 * The caller holds the session's lock and then the case's, the order the applicant's writes take
 * them in (authorizeApplicant, then lockCaseRow), so an expiry racing a submission waits instead
 * of deadlocking; and it has checked the session is still `open`.
 */
export async function expireUnsubmittedSession(
  tx: Tx,
  deps: WriterDeps,
  input: { row: CaseRow; session: SessionRow; expiredAt: Date; cause: Cause },
): Promise<SessionRow> {
  const { row, session, expiredAt, cause } = input;
  await updateSessionRow(tx, tenantOfRow(row), session.session_id, { status: 'expired', expires_at: expiredAt });
  await recordCaseEvent(tx, deps, {
    caseRow: row,
    eventType: 'session.expired',
    data: { session_id: session.session_id, expired_at: expiredAt.toISOString() },
    cause,
  });
  if (row.runtime_status === 'intake_in_progress' || row.runtime_status === 'processing') {
    const done = await transitionCase(tx, deps, { row, to: 'complete', patch: { caseStatus: 'abandoned' }, cause });
    await recordCaseEvent(tx, deps, { caseRow: done, eventType: 'case.completed', data: { case_status: 'abandoned' }, cause });
  }
  return { ...session, status: 'expired', expires_at: expiredAt };
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
