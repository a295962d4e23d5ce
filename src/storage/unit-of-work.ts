import { sql } from 'kysely';
import type { Executor, Tx } from './schema.ts';

/**
 * Runs `work` as one unit: everything it writes commits together or not at all. Nested calls join
 * the transaction already open, so a domain function can be composed into a larger unit of work.
 */
export async function inTransaction<T>(db: Executor, work: (tx: Tx) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db as Tx);
  let opened: Tx | undefined;
  const result = await db.transaction().execute(async (tx) => {
    opened = tx;
    const result = await work(tx);
    await runBeforeCommit(tx);
    return result;
  });
  await runAfterCommit(opened!);
  return result;
}

const afterCommitWork = new WeakMap<Tx, (() => Promise<void>)[]>();

/**
 * Registers work to run once the transaction has committed (a rolled back one runs none): what
 * must not happen unless the change stands, outside the database, such as deleting an erased
 * document's objects from the bucket. Best effort: a failure is the work's own to log, and the
 * work must have a safety net (the orphan sweep, for objects). Only transactions opened by
 * `inTransaction` run it.
 */
export function afterCommit(tx: Tx, work: () => Promise<void>): void {
  let pending = afterCommitWork.get(tx);
  if (!pending) {
    pending = [];
    afterCommitWork.set(tx, pending);
  }
  pending.push(work);
}

async function runAfterCommit(tx: Tx): Promise<void> {
  const pending = afterCommitWork.get(tx);
  if (!pending) return;
  afterCommitWork.delete(tx);
  for (const work of pending) await work().catch(() => {});
}

const beforeCommitWork = new WeakMap<Tx, Map<string, () => Promise<void>>>();

/**
 * Registers work to run once, as the last step of the transaction, before it commits (keyed, so
 * ten changes to one case refresh its projection once). Only transactions opened by
 * `inTransaction` run it.
 */
export function beforeCommit(tx: Tx, key: string, work: () => Promise<void>): void {
  let pending = beforeCommitWork.get(tx);
  if (!pending) {
    pending = new Map();
    beforeCommitWork.set(tx, pending);
  }
  if (!pending.has(key)) pending.set(key, work);
}

async function runBeforeCommit(tx: Tx): Promise<void> {
  const pending = beforeCommitWork.get(tx);
  while (pending && pending.size > 0) {
    const [key, work] = pending.entries().next().value as [string, () => Promise<void>];
    pending.delete(key);
    await work();
  }
}

class RollbackWith<F> extends Error {
  readonly failure: F;
  constructor(failure: F) {
    super('rolled back');
    this.failure = failure;
  }
}

/**
 * Like `inTransaction` for work that returns a Result: a failure value rolls the transaction back
 * (nothing it wrote survives) and is returned as it is.
 */
export async function inTransactionResult<T, F extends { ok: false }>(
  db: Executor,
  work: (tx: Tx) => Promise<{ ok: true; value: T } | F>,
): Promise<{ ok: true; value: T } | F> {
  try {
    return await inTransaction(db, async (tx) => {
      const result = await work(tx);
      if (!result.ok) throw new RollbackWith(result);
      return result;
    });
  } catch (err) {
    if (err instanceof RollbackWith) return err.failure as F;
    throw err;
  }
}

/** PostgreSQL's unique_violation, with the constraint or index that raised it. */
export function uniqueViolation(err: unknown): string | undefined {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' ? (e.constraint ?? '') : undefined;
}

/** Thrown inside a unit of work that must be rolled back and run again from the start. */
export class RetryUnitOfWork extends Error {
  override name = 'RetryUnitOfWork';
}

/** PostgreSQL's deadlock_detected and serialization_failure: the transaction may simply be retried. */
function retryable(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return err instanceof RetryUnitOfWork || code === '40P01' || code === '40001';
}

/** Runs `work` (a whole unit of work), again from the start when it asks to be retried, up to `attempts` times. */
export async function withRetries<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= attempts || !retryable(err)) throw err;
    }
  }
}

/**
 * Serialises transactions on one key until they end (a PostgreSQL transaction-level advisory
 * lock): strings are hashed with `hashtext`, numbers used as they are. `shared` holders do not
 * wait for each other, only for an exclusive holder.
 */
export async function lockTransactionKey(tx: Tx, key: string | number, mode: 'exclusive' | 'shared' = 'exclusive'): Promise<void> {
  const id = typeof key === 'number' ? sql`${key}` : sql`hashtext(${key})`;
  if (mode === 'shared') await sql`select pg_advisory_xact_lock_shared(${id})`.execute(tx);
  else await sql`select pg_advisory_xact_lock(${id})`.execute(tx);
}
