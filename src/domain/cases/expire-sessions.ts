import type { Db } from '../../storage/schema.ts';
import { inTransaction } from '../../storage/unit-of-work.ts';
import { recordCaseEvent } from './case-events.ts';
import { lockCaseRow, transitionCase, type WriterDeps } from './case-writer.ts';

/**
 * Completes, as `abandoned`, cases whose session expired before the applicant submitted:
 * `v1.session.expired` then `v1.case.completed` with case_status abandoned. Returns how many it
 * closed; each case is its own transaction, so one failure does not hold back the rest.
 */
export async function expireSessions(deps: WriterDeps & { db: Db }, batch = 100): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.db
    .selectFrom('sessions')
    .select(['session_id', 'case_id'])
    .where('status', '=', 'open')
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(batch)
    .execute();
  let closed = 0;
  for (const { session_id: sessionId, case_id: caseId } of due) {
    await inTransaction(deps.db, async (tx) => {
      const row = await lockCaseRow(tx, caseId);
      const session = await tx.selectFrom('sessions').selectAll().where('session_id', '=', sessionId).executeTakeFirst();
      if (!row || !session || session.status !== 'open' || session.expires_at > now) return;
      await tx.updateTable('sessions').set({ status: 'expired' }).where('session_id', '=', sessionId).execute();
      const cause = { traceId: `sweep:session-expiry:${sessionId}`, idempotencyKey: null, sessionId };
      await recordCaseEvent(tx, deps, row, 'session.expired', { session_id: sessionId, expired_at: session.expires_at.toISOString() }, cause);
      if (row.runtime_status === 'intake_in_progress' || row.runtime_status === 'processing') {
        const done = await transitionCase(tx, deps, row, 'complete', { caseStatus: 'abandoned' }, cause);
        await recordCaseEvent(tx, deps, done, 'case.completed', { case_status: 'abandoned' }, cause);
      }
      closed++;
    });
  }
  return closed;
}
