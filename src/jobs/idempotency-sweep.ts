import { deleteExpiredIdempotencyRecordsUnscoped } from '../storage/idempotency.ts';
import type { JobTask } from './worker.ts';

const BATCH = 500;

/**
 * Deletes idempotency records past their 24 hours. Correctness does not depend on it (an expired
 * record is ignored and replaced when its key comes back); it keeps the table small.
 */
export const idempotencySweep: JobTask = {
  name: 'idempotency-sweep',
  idleMs: 60_000,
  async run(ctx) {
    const deleted = await deleteExpiredIdempotencyRecordsUnscoped(ctx.db, ctx.clock.now(), BATCH);
    // A full batch means there may be more: the worker runs again at once.
    return deleted >= BATCH ? deleted : 0;
  },
};
