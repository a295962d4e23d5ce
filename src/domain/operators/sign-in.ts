import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps.ts';
import {
  clearSignInFailures,
  countSignInFailures,
  findOperatorByEmail,
  insertOperatorSession,
  markOperatorSignedIn,
  readSignInFailures,
} from '../../storage/operators.ts';
import { inTransaction } from '../../storage/unit-of-work.ts';
import type { OperatorRow } from '../../storage/operators.ts';
import { decoyPasswordHash, passwordMatches } from './passwords.ts';
import { hashSessionCookie, SESSION_ABSOLUTE_MS } from './operator-sessions.ts';

/**
 * Lock-outs, in fixed 15-minute windows: 5 failures lock an email (whether or not it names an
 * account, so a lock-out says nothing about which exist), 20 lock a client address (one address
 * guessing across many emails). Fixed windows are coarse but need one row per bucket and window.
 */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_ACCOUNT = 5;
export const MAX_FAILURES_PER_ADDRESS = 20;

export type SignInOutcome =
  | { kind: 'signed_in'; token: string; operator: OperatorRow }
  | { kind: 'refused' }
  | { kind: 'locked'; retryAfterSeconds: number };

export interface SignInInput {
  email: string;
  password: string;
  clientAddress: string;
}

/**
 * Checks an email and password. A locked bucket refuses before the password is looked at, so a
 * guesser learns nothing more once locked out. Success clears the account's failures, opens a
 * server-side session in the test environment, and returns the cookie token (shown once: only its
 * hash is stored).
 */
export async function signIn(deps: Pick<Deps, 'db' | 'clock' | 'ids'>, input: SignInInput): Promise<SignInOutcome> {
  const now = deps.clock.now();
  const windowStart = new Date(Math.floor(now.getTime() / SIGN_IN_WINDOW_MS) * SIGN_IN_WINDOW_MS);
  const retryAfterSeconds = Math.ceil((windowStart.getTime() + SIGN_IN_WINDOW_MS - now.getTime()) / 1000);
  const email = input.email.trim().toLowerCase();
  const buckets = [`account:${email}`, `address:${input.clientAddress}`];

  const [accountFailures, addressFailures] = await readSignInFailures(deps.db, buckets, windowStart);
  if (accountFailures! >= MAX_FAILURES_PER_ACCOUNT || addressFailures! >= MAX_FAILURES_PER_ADDRESS) return { kind: 'locked', retryAfterSeconds };

  const operator = email === '' ? undefined : await findOperatorByEmail(deps.db, email);
  const matches = await passwordMatches(input.password, operator?.password_hash ?? (await decoyPasswordHash()));
  if (!operator || !matches || operator.disabled_at !== null) {
    await inTransaction(deps.db, (tx) => countSignInFailures(tx, buckets, windowStart));
    return { kind: 'refused' };
  }

  const token = randomBytes(32).toString('base64url');
  await inTransaction(deps.db, async (tx) => {
    await clearSignInFailures(tx, buckets[0]!);
    await markOperatorSignedIn(tx, operator.operator_id, now);
    await insertOperatorSession(tx, {
      session_id: deps.ids.next('ops'),
      token_hash: hashSessionCookie(token),
      operator_id: operator.operator_id,
      org_id: operator.org_id,
      environment: 'test',
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
      revoked_at: null,
    });
  });
  return { kind: 'signed_in', token, operator };
}
