import type { Db, Tx } from '../../storage/schema.ts';
import { inTransactionResult, withRetries } from '../../storage/unit-of-work.ts';
import type { Result } from '../errors.ts';
import { rememberCommittedAnswer, replayRecorded, runIdempotent, runIdempotentFolded, type IdempotentRequest, type IdempotentResponse, type KeyAnswer, type KeyClaim } from './idempotency.ts';

/**
 * An idempotent API operation (POST /sessions, POST /process) from start to end: a committed key
 * is answered with one read and no transaction; otherwise `create` runs in one transaction with
 * the key's claim, retried from the start when the transaction asks to be, and rolled back (so
 * the key is released) when it returns a failure.
 */
export async function runIdempotentOperation(
  deps: { db: Db; secret: string; now: Date },
  request: IdempotentRequest,
  create: (tx: Tx) => Promise<Result<{ status: number; body: Record<string, unknown> }>>,
): Promise<Result<IdempotentResponse>> {
  return replayedOrRun(deps, request, (tx) => runIdempotent(tx, { secret: deps.secret, now: deps.now }, request, () => create(tx)));
}

/**
 * `runIdempotentOperation` for an operation that claims the key in its first statement and stores
 * the answer in its last (runIdempotentFolded): session creation.
 */
export async function runIdempotentOperationFolded<R extends { claimed: boolean }>(
  deps: { db: Db; secret: string; now: Date },
  request: IdempotentRequest,
  read: (tx: Tx, claim: KeyClaim) => Promise<R>,
  create: (tx: Tx, read: R, answerFor: (status: number, body: Record<string, unknown>) => KeyAnswer) => Promise<Result<{ status: number; body: Record<string, unknown> }>>,
): Promise<Result<IdempotentResponse>> {
  return replayedOrRun(deps, request, (tx) =>
    runIdempotentFolded(tx, { secret: deps.secret, now: deps.now }, request, (claim) => read(tx, claim), (got, answerFor) => create(tx, got, answerFor)),
  );
}

/**
 * A committed key's answer from memory or one read; otherwise `run` in one transaction, retried from
 * the start when the transaction asks to be. A new answer has committed by the time the
 * transaction returns, so this process's replays of it then need no statement.
 */
async function replayedOrRun(
  deps: { db: Db; secret: string; now: Date },
  request: IdempotentRequest,
  run: (tx: Tx) => Promise<Result<IdempotentResponse>>,
): Promise<Result<IdempotentResponse>> {
  const recorded = await replayRecorded(deps.db, { secret: deps.secret, now: deps.now }, request);
  if (recorded) return recorded;
  const result = await withRetries(() => inTransactionResult(deps.db, run));
  // Inside a caller's transaction nothing has committed yet, and it may still roll back.
  if (result.ok && !result.value.replay && !deps.db.isTransaction) rememberCommittedAnswer(request, deps.now, result.value.status, result.value.body);
  return result;
}
