import { sql } from 'kysely';
import type { Executor } from '../schema.ts';
import { inTransaction } from '../unit-of-work.ts';

/**
 * Deletes up to `limit` finished deliveries (delivered, or failed) whose last change is older than
 * `before`, with their attempts, in one short transaction. The age is the last change
 * (`updated_at`): a failed delivery that someone retries by hand starts over, and one never
 * retried ages out like the rest. Deliveries still waiting for an attempt are never touched.
 *
 * Rows another transaction holds (a retry or an acknowledgement in progress) are skipped, never
 * waited for; a batch of 500 with its attempts takes a few milliseconds, so the sweep holds no
 * lock that a request or a delivery worker would notice. Served by webhook_deliveries_finished.
 */
export async function pruneFinishedDeliveriesUnscoped(db: Executor, input: { before: Date; limit: number }): Promise<{ deliveries: number; attempts: number }> {
  return inTransaction(db, async (tx) => {
    const doomed = await sql<{ delivery_id: string }>`
      select delivery_id from webhook_deliveries
      where status in ('delivered', 'failed') and updated_at < ${input.before}
      limit ${input.limit}
      for update skip locked`.execute(tx);
    const ids = doomed.rows.map((r) => r.delivery_id);
    if (ids.length === 0) return { deliveries: 0, attempts: 0 };
    const attempts = await tx.deleteFrom('webhook_delivery_attempts').where('delivery_id', 'in', ids).executeTakeFirst();
    const deliveries = await tx.deleteFrom('webhook_deliveries').where('delivery_id', 'in', ids).executeTakeFirst();
    return { deliveries: Number(deliveries.numDeletedRows), attempts: Number(attempts.numDeletedRows) };
  });
}
