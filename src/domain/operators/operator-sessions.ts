import { createHash } from 'node:crypto';
import type { Environment } from '../../config.ts';
import type { Deps } from '../deps.ts';
import {
  findLiveOperatorSession,
  revokeOperatorSession,
  setOperatorSessionEnvironment,
  touchOperatorSession,
  type OperatorRow,
  type OperatorSessionRow,
} from '../../storage/operators.ts';
import { fail, ok, type Result } from '../errors.ts';

/** A session unused for 30 minutes ends; none lives longer than 12 hours (a working day and a bit). */
export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60_000;
/** last_seen_at is written at most once a minute per session: idle time is judged to the minute. */
const TOUCH_RESOLUTION_MS = 60_000;

/** Only the cookie token's SHA-256 is stored: a database dump signs nobody in. */
export function hashSessionCookie(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export interface OperatorSession {
  session: OperatorSessionRow;
  operator: OperatorRow;
  orgName: string;
  /** Unread integration notifications of the session's environment, for admins (null for reviewers). */
  unreadNotifications: number | null;
}

export type ResolvedSession = { kind: 'active'; value: OperatorSession } | { kind: 'expired' } | { kind: 'none' };

/**
 * The signed-in operator behind a dashboard cookie. A session idle too long, revoked, past its
 * lifetime, or of a disabled operator is not active; an idle one is revoked on the spot, so it
 * cannot come back if the clocks of two processes disagree.
 */
export async function resolveOperatorSession(deps: Pick<Deps, 'db' | 'clock'>, input: { token: string | undefined }): Promise<ResolvedSession> {
  if (!input.token || input.token.length > 128) return { kind: 'none' };
  const now = deps.clock.now();
  const found = await findLiveOperatorSession(deps.db, hashSessionCookie(input.token), now);
  if (!found) return { kind: 'expired' };
  if (found.operator.disabled_at !== null) return { kind: 'expired' };
  if (now.getTime() - found.session.last_seen_at.getTime() > SESSION_IDLE_MS) {
    await revokeOperatorSession(deps.db, found.session.session_id, now);
    return { kind: 'expired' };
  }
  if (now.getTime() - found.session.last_seen_at.getTime() >= TOUCH_RESOLUTION_MS) {
    await touchOperatorSession(deps.db, found.session.session_id, now);
  }
  return { kind: 'active', value: found };
}

export async function signOut(deps: Pick<Deps, 'db' | 'clock'>, input: { sessionId: string }): Promise<void> {
  await revokeOperatorSession(deps.db, input.sessionId, deps.clock.now());
}

/** The test/live switch: every dashboard view is scoped to the session's environment. */
export async function switchEnvironment(
  deps: Pick<Deps, 'db' | 'config'>,
  input: { sessionId: string; environment: Environment },
): Promise<Result<{ environment: Environment }>> {
  if (!deps.config.acceptedKeyEnvironments.includes(input.environment)) {
    return fail('invalid_request', `This deployment does not accept the ${input.environment} environment.`);
  }
  await setOperatorSessionEnvironment(deps.db, input.sessionId, input.environment);
  return ok({ environment: input.environment });
}
