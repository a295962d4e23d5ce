import { sql } from 'kysely';
import type { Executor, Tx } from './schema.ts';

/**
 * Runs `work` as one unit: everything it writes commits together or not at all. Nested calls join
 * the transaction already open, so a domain function can be composed into a larger unit of work
 * (a nested throw fails the whole unit; `inTransactionResult` nests under a savepoint).
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
 * Like `inTransaction` for work that returns a Result: a failure value rolls the work back (nothing
 * it wrote survives) and is returned as it is. Inside a transaction already open the work runs
 * under a savepoint, so a nested failure (or throw) undoes the nested writes only and the caller
 * decides what becomes of its own; the beforeCommit and afterCommit work the nested call
 * registered goes with it.
 */
export async function inTransactionResult<T, F extends { ok: false }>(
  db: Executor,
  work: (tx: Tx) => Promise<{ ok: true; value: T } | F>,
): Promise<{ ok: true; value: T } | F> {
  if (db.isTransaction) return underSavepoint(db as Tx, work);
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

const savepointsOpened = new WeakMap<Tx, number>();

/**
 * Runs `work` between SAVEPOINT and RELEASE on the open transaction, rolling back to the savepoint
 * when it fails or throws. The nested call holds a plain Transaction, not Kysely's
 * ControlledTransaction, so the three statements are sent as SQL on the transaction's connection,
 * as Kysely's own savepoint() does. Names are unique per transaction, so nesting deeper works.
 */
async function underSavepoint<T, F extends { ok: false }>(tx: Tx, work: (tx: Tx) => Promise<{ ok: true; value: T } | F>): Promise<{ ok: true; value: T } | F> {
  const n = (savepointsOpened.get(tx) ?? 0) + 1;
  savepointsOpened.set(tx, n);
  const name = sql.raw(`unit_of_work_${n}`);
  const registeredBefore = new Set(beforeCommitWork.get(tx)?.keys());
  const afterCommitsBefore = afterCommitWork.get(tx)?.length ?? 0;
  const rollBack = async () => {
    await sql`rollback to savepoint ${name}`.execute(tx);
    const pending = beforeCommitWork.get(tx);
    for (const key of pending?.keys() ?? []) if (!registeredBefore.has(key)) pending!.delete(key);
    // A rolled back nested erasure must not delete its document's objects when the outer unit commits.
    afterCommitWork.get(tx)?.splice(afterCommitsBefore);
  };
  await sql`savepoint ${name}`.execute(tx);
  let result: { ok: true; value: T } | F;
  try {
    result = await work(tx);
  } catch (err) {
    // The work's own error is the one to report, even if the connection is gone for the rollback too.
    await rollBack().catch(() => {});
    throw err;
  }
  if (result.ok) await sql`release savepoint ${name}`.execute(tx);
  else await rollBack();
  return result;
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
