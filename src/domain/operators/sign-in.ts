import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps.ts';
import {
  clearSignInFailures,
  countSignInAttempt,
  findOperatorByEmail,
  insertOperatorSession,
  markOperatorSignedIn,
  uncountSignInAttempt,
} from '../../storage/operators.ts';
import { inTransaction } from '../../storage/unit-of-work.ts';
import type { OperatorRow } from '../../storage/operators.ts';
import { addressLimitKey } from '../../net/client-address.ts';
import { decoyPasswordHash, passwordMatches } from './passwords.ts';
import { hashSessionCookie, SESSION_ABSOLUTE_MS } from './operator-sessions.ts';

/**
 * Lock-outs, in fixed 15-minute windows (fixed windows are coarse but need one row per bucket and
 * window). Three buckets, each with its own limit (docs/decisions.md, "Security, round 3"):
 * - an email from one client address (IPv4 address or IPv6 /64): 5. The usual lock-out, but a
 *   stranger who knows an operator's email locks only their own address out, not the operator;
 * - a client address across all emails: 20 (one address guessing across many accounts);
 * - an email from all addresses together: 50, a ceiling against guessing spread over many
 *   addresses. Locking an operator out through it takes 10 addresses or more.
 * Emails that name no account count the same, so a lock-out says nothing about which exist.
 */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS = 5;
export const MAX_FAILURES_PER_ADDRESS = 20;
export const MAX_FAILURES_PER_ACCOUNT = 50;

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
 * Checks an email and password. Each attempt is counted before the password is looked at, one
 * bucket after another, each with one statement that increments and returns the count: the
 * attempt goes on only if every count is within its limit, so however many arrive at once, at
 * most the limit of them reach the password check (issue 23 §2). An attempt refused by one bucket
 * is not counted in the later ones: guesses stopped by the account-and-address lock do not eat
 * into the account-wide ceiling. Success takes its own attempt back and clears the lock of its
 * account and address, opens a server-side session in the test environment, and returns the
 * cookie token (shown once: only its hash is stored).
 */
export async function signIn(deps: Pick<Deps, 'db' | 'clock' | 'ids'>, input: SignInInput): Promise<SignInOutcome> {
  const now = deps.clock.now();
  const windowStart = new Date(Math.floor(now.getTime() / SIGN_IN_WINDOW_MS) * SIGN_IN_WINDOW_MS);
  const retryAfterSeconds = Math.ceil((windowStart.getTime() + SIGN_IN_WINDOW_MS - now.getTime()) / 1000);
  const email = input.email.trim().toLowerCase();
  const address = addressLimitKey(input.clientAddress);
  const buckets = [
    { bucket: `account+address:${email} ${address}`, limit: MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS },
    { bucket: `address:${address}`, limit: MAX_FAILURES_PER_ADDRESS },
    { bucket: `account:${email}`, limit: MAX_FAILURES_PER_ACCOUNT },
  ];
  for (const { bucket, limit } of buckets) {
    if ((await countSignInAttempt(deps.db, bucket, windowStart)) > limit) return { kind: 'locked', retryAfterSeconds };
  }

  const operator = email === '' ? undefined : await findOperatorByEmail(deps.db, email);
  const matches = await passwordMatches(input.password, operator?.password_hash ?? (await decoyPasswordHash()));
  if (!operator || !matches || operator.disabled_at !== null) return { kind: 'refused' };

  const token = randomBytes(32).toString('base64url');
  // The address keeps its other failures and the account its failures from elsewhere: an
  // attacker signing in to an account of their own must not reset either.
  await clearSignInFailures(deps.db, buckets[0]!.bucket);
  for (const { bucket } of buckets.slice(1)) await uncountSignInAttempt(deps.db, bucket, windowStart);
  await inTransaction(deps.db, async (tx) => {
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
