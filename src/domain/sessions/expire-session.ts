import type { Tenant } from '../../ports/tenant.ts';
import { lockWorkspaceSession } from '../../storage/cases.ts';
import type { Db } from '../../storage/schema.ts';
import { inTransactionResult } from '../../storage/unit-of-work.ts';
import { lockCaseRow, type WriterDeps } from '../cases/case-writer.ts';
import { expireUnsubmittedSession } from '../cases/expire-sessions.ts';
import { fail, ok, type Result } from '../errors.ts';
import { renderSession, type SessionResource } from './session-resource.ts';

/**
 * POST /api/v1/sessions/{session_id}/expire, as Stripe expires a Checkout Session: an open session
 * ends now and its case is abandoned, exactly as the expiry sweep would end it (one shared step,
 * `expireUnsubmittedSession`). Expiring an expired session answers it again and records nothing;
 * a submitted one is refused, because its case no longer depends on the link.
 *
 * The answer is the Session resource with `signed_url: null`: only the token's hash is stored, and
 * the link no longer opens anything (Stripe's `url` is null once a session is not open).
 */
export async function expireSession(
  deps: WriterDeps & { db: Db },
  input: { tenant: Tenant; sessionId: string; traceId: string },
): Promise<Result<SessionResource>> {
  const now = deps.clock.now();
  return inTransactionResult(deps.db, async (tx) => {
    const session = await lockWorkspaceSession(tx, input.tenant, input.sessionId);
    if (!session) return fail('not_found', 'No such session.');
    const row = await lockCaseRow(tx, { tenant: input.tenant, caseId: session.case_id });
    if (!row) return fail('not_found', 'No such session.');
    if (session.status === 'submitted') {
      return fail('invalid_request', 'This session was submitted: only an open session can be expired. The case goes on without the applicant’s link.');
    }
    if (session.status === 'expired') return ok(renderSession({ session, caseRow: row, signedUrl: null }));
    // An open session past its time that the sweep has not reached yet expired then, not now.
    const expiredAt = session.expires_at < now ? session.expires_at : now;
    const cause = { traceId: input.traceId, idempotencyKey: null, sessionId: session.session_id };
    const expired = await expireUnsubmittedSession(tx, deps, { row, session, expiredAt, cause });
    return ok(renderSession({ session: expired, caseRow: row, signedUrl: null }));
  });
}
