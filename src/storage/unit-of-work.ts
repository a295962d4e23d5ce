import type { Executor, Tx } from './schema.ts';

/**
 * Runs `work` as one unit: everything it writes commits together or not at all. Nested calls join
 * the transaction already open, so a domain function can be composed into a larger unit of work.
 */
export async function inTransaction<T>(db: Executor, work: (tx: Tx) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db as Tx);
  return db.transaction().execute(work);
}
