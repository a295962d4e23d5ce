import type { Environment } from '../../config.ts';
import { claimIdempotencyKey, completeIdempotencyRecord, findCommittedIdempotencyRecord, findIdempotencyRecord, type IdempotencyRow, type IdempotencyScope } from '../../storage/idempotency.ts';
export type { IdempotencyScope } from '../../storage/idempotency.ts';
import type { Executor, Tx } from '../../storage/schema.ts';
import { canonicalJson, sha256Hex } from '../canonical-json.ts';
import { open, seal, type BoxLabel } from '../crypto/secret-box.ts';
import { fail, ok, type Result } from '../errors.ts';

/** Contract §5: records are kept 24 hours. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface IdempotentRequest {
  orgId: string;
  environment: Environment;
  operation: string;
  key: string;
  /** The request body; its canonical JSON without `idempotency_key` is the fingerprint. */
  body: Record<string, unknown>;
}

export interface IdempotentResponse {
  status: number;
  body: Record<string, unknown>;
  replay: boolean;
}

function keyConflict() {
  return fail(
    'idempotency_key_conflict',
    'Keys for idempotent requests can only be used with the same parameters they were first used with. This key was used with different parameters.',
  );
}

function answerFromRecord(record: Pick<IdempotencyRow, 'fingerprint' | 'response_status' | 'response_body'>, fingerprint: string, secret: string, scope: IdempotencyScope): Result<IdempotentResponse> {
  if (record.fingerprint !== fingerprint) return keyConflict();
  const sealed = (record.response_body as { sealed?: string }).sealed;
  const text = sealed === undefined ? undefined : open(secret, snapshotLabel(scope), sealed);
  if (text === undefined) throw new Error('idempotency snapshot cannot be opened: was DOSSIER_SECRET changed?');
  return ok({ status: record.response_status, body: JSON.parse(text) as Record<string, unknown>, replay: true });
}

/**
 * Answers this process has seen committed, by key, until their records expire: a replay that hits
 * costs no statement and no decryption. As correct as reading the record: a committed record never
 * changes before `expires_at` (only a claim of an expired record or the sweeper touch it, and
 * both only after), so the copy answers exactly what the row would, and after expiry the key goes
 * back to the database. Another process that committed the key is not known here, and its replay
 * reads the row as before. Bounded (oldest out first); each entry is one small answer, a signed
 * link in clear only in this process's memory, where it also is while the request is answered.
 */
const committedAnswers = new Map<
  string,
  { fingerprint: string; status: number; body: Record<string, unknown>; expiresAt: number; rawText?: string }
>();
const COMMITTED_ANSWERS_LIMIT = 5_000;
/**
 * Raw body texts longer than this are not kept beside an answer (they take the canonical path):
 * the bound keeps the copies' memory at a few megabytes at most (5 000 × 2 KB).
 */
const RAW_TEXT_LIMIT = 2_048;

// The key comes last and the other parts hold no line feed, so the text names one scope.
const answerKey = (s: IdempotencyScope) => `${s.orgId}\n${s.environment}\n${s.operation}\n${s.key}`;

function scopeOf(request: IdempotentRequest): IdempotencyScope {
  return { orgId: request.orgId, environment: request.environment, operation: request.operation, key: request.key };
}

function rememberAnswer(scope: IdempotencyScope, fingerprint: string, status: number, body: Record<string, unknown>, expiresAt: Date): void {
  const key = answerKey(scope);
  committedAnswers.delete(key);
  if (committedAnswers.size >= COMMITTED_ANSWERS_LIMIT) committedAnswers.delete(committedAnswers.keys().next().value as string);
  committedAnswers.set(key, { fingerprint, status, body: Object.freeze(body), expiresAt: expiresAt.getTime() });
}

/** Empties this process's copies (tests use it to act as another process). */
export function forgetCommittedAnswers(): void {
  committedAnswers.clear();
}

/**
 * Records the answer of a request that has committed (call it only after the commit): a replay in
 * this process then needs no statement. `now` is the request's, from which the record's expiry was set.
 */
export function rememberCommittedAnswer(request: IdempotentRequest, now: Date, status: number, body: Record<string, unknown>): void {
  rememberAnswer(scopeOf(request), requestFingerprint(request.body), status, body, new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS));
}

/**
 * The answer for a key whose request has already committed (a replay or a conflict), from this
 * process's copy or read without a transaction; undefined when the key is new, expired or still in
 * flight, which then go through `runIdempotent`.
 */
export async function replayRecorded(
  db: Executor,
  deps: { secret: string; now: Date },
  request: IdempotentRequest,
): Promise<Result<IdempotentResponse> | undefined> {
  const scope = scopeOf(request);
  const fingerprint = requestFingerprint(request.body);
  const known = committedAnswers.get(answerKey(scope));
  if (known && known.expiresAt > deps.now.getTime()) {
    if (known.fingerprint !== fingerprint) return keyConflict();
    return ok({ status: known.status, body: known.body, replay: true });
  }
  const record = await findCommittedIdempotencyRecord(db, scope);
  if (!record || record.response_status === 0 || record.expires_at <= deps.now) return undefined;
  return answerFromCommittedRecord(deps.secret, request, record);
}

/** The answer of a committed, unexpired record of `request`'s key (a replay or a conflict), remembered by this process. */
export function answerFromCommittedRecord(
  secret: string,
  request: IdempotentRequest,
  record: Pick<IdempotencyRow, 'fingerprint' | 'response_status' | 'response_body' | 'expires_at'>,
): Result<IdempotentResponse> {
  const scope = scopeOf(request);
  const answer = answerFromRecord(record, requestFingerprint(request.body), secret, scope);
  if (answer.ok) rememberAnswer(scope, record.fingerprint, record.response_status, answer.value.body, record.expires_at);
  return answer;
}

/**
 * The answer this process holds for a committed key, when `request.body` has the fingerprint it
 * was first sent with; undefined for an unknown or expired key and for a different body, which
 * then take the full path (validation first, then `idempotency_key_conflict` from `replayRecorded`).
 * Safe to call before the body is validated: an equal fingerprint means the body equals, in
 * canonical JSON, one that passed validation when it was first sent, so a known replay need not be
 * validated again (issue 16: zod and the fingerprint were a tenth of a replay's CPU).
 *
 * `rawText`, the body's text as received, is a fast path (issue 29): the contract's "same
 * request" is the canonical JSON without `idempotency_key` (product contract, idempotency), so
 * equal fingerprints are what must replay, and another spacing or key order of the same body still
 * does. But equal text parses to an equal body and so has an equal fingerprint; the text of the
 * last replay that matched is kept beside the answer, and the next replay with the same text is
 * recognised by one string comparison, without canonical JSON and SHA-256.
 */
export function knownReplay(
  request: IdempotentRequest,
  now: Date,
  rawText?: string,
): { status: number; body: Readonly<Record<string, unknown>> } | undefined {
  const known = committedAnswers.get(answerKey(scopeOf(request)));
  if (!known || known.expiresAt <= now.getTime()) return undefined;
  if (rawText === undefined || known.rawText !== rawText) {
    if (known.fingerprint !== requestFingerprint(request.body)) return undefined;
    if (rawText !== undefined && rawText.length <= RAW_TEXT_LIMIT) known.rawText = rawText;
  }
  return { status: known.status, body: known.body };
}

/** A snapshot opens only under the key it was recorded for (org, environment, operation, key). */
function snapshotLabel(scope: IdempotencyScope): BoxLabel {
  return { purpose: 'idempotency', owner: JSON.stringify([scope.orgId, scope.environment, scope.operation, scope.key]) };
}

export function requestFingerprint(body: Record<string, unknown>): string {
  const { idempotency_key: _ignored, ...rest } = body;
  return sha256Hex(canonicalJson(rest));
}

/**
 * Runs `create` at most once per key within the caller's transaction, which must roll back when
 * the result is a failure (use `inTransactionResult`). A replay with the same
 * fingerprint returns the stored snapshot; another fingerprint is `idempotency_key_conflict`.
 * Because the record is written in the same transaction as the resource, a request that fails
 * (validation, gates, a crash) leaves no record behind and the key can be retried.
 *
 * The snapshot is sealed under the deployment secret: it may hold a signed link whose token is
 * otherwise stored only as a hash.
 */
export async function runIdempotent(
  tx: Tx,
  deps: { secret: string; now: Date },
  request: IdempotentRequest,
  create: () => Promise<Result<{ status: number; body: Record<string, unknown> }>>,
): Promise<Result<IdempotentResponse>> {
  const scope = scopeOf(request);
  const fingerprint = requestFingerprint(request.body);
  const claimed = await claimIdempotencyKey(tx, scope, fingerprint, deps.now, new Date(deps.now.getTime() + IDEMPOTENCY_RETENTION_MS));
  if (!claimed) {
    const existing = await findIdempotencyRecord(tx, scope);
    if (!existing) throw new Error('idempotency record vanished between claim and read');
    return answerFromRecord(existing, fingerprint, deps.secret, scope);
  }
  const created = await create();
  // A refusal returns before the record is completed; the caller rolls back, which removes the claim.
  if (!created.ok) return created;
  const { status, body } = created.value;
  await completeIdempotencyRecord(tx, scope, status, { sealed: seal(deps.secret, snapshotLabel(scope), JSON.stringify(body)) });
  return ok({ status, body, replay: false });
}

/** A key claim for an operation to run inside its own first statement (claimIdempotencyKeyQuery). */
export interface KeyClaim {
  scope: IdempotencyScope;
  fingerprint: string;
  now: Date;
  expiresAt: Date;
}

/** The answer to store on the key's record (completeIdempotencyRecordQuery), sealed. */
export interface KeyAnswer {
  scope: IdempotencyScope;
  status: number;
  body: Record<string, unknown>;
}

/** The claim of a request's key at `now`, for an operation that runs it in its own statement. */
export function keyClaimOf(request: IdempotentRequest, now: Date): KeyClaim {
  return { scope: scopeOf(request), fingerprint: requestFingerprint(request.body), now, expiresAt: new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS) };
}

/** The answer to store on a key's record, sealed under the deployment secret (see runIdempotent). */
export function sealedAnswer(secret: string, scope: IdempotencyScope, status: number, body: Record<string, unknown>): KeyAnswer {
  return { scope, status, body: { sealed: seal(secret, snapshotLabel(scope), JSON.stringify(body)) } };
}

/**
 * `runIdempotent` for an operation that folds the key's claim into its first statement and the
 * stored answer into its last (session creation: two statements instead of four, issue 16).
 * `read` must run the claim it is given (claimIdempotencyKeyQuery) and say whether it returned a
 * row; `create` must store `answerFor(status, body)` in the same transaction. Same guarantees as
 * `runIdempotent`: a failure rolls back the claim with everything else.
 */
export async function runIdempotentFolded<R extends { claimed: boolean }>(
  tx: Tx,
  deps: { secret: string; now: Date },
  request: IdempotentRequest,
  read: (claim: KeyClaim) => Promise<R>,
  create: (read: R, answerFor: (status: number, body: Record<string, unknown>) => KeyAnswer) => Promise<Result<{ status: number; body: Record<string, unknown> }>>,
): Promise<Result<IdempotentResponse>> {
  const claim = keyClaimOf(request, deps.now);
  const { scope, fingerprint } = claim;
  const got = await read(claim);
  if (!got.claimed) {
    const existing = await findIdempotencyRecord(tx, scope);
    if (!existing) throw new Error('idempotency record vanished between claim and read');
    return answerFromRecord(existing, fingerprint, deps.secret, scope);
  }
  const created = await create(got, (status, body) => sealedAnswer(deps.secret, scope, status, body));
  if (!created.ok) return created;
  return ok({ ...created.value, replay: false });
}
