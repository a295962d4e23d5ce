import { sql } from 'kysely';
import type { Migration } from './index.ts';

/**
 * The queue's tab counts. Open cases (every category but `done`) are counted on each queue page
 * from this narrow partial index, by an index-only scan whose size follows the open workload
 * rather than the workspace's history; `done`, which only grows, is counted from `cases_queue`
 * and kept for a minute (src/domain/console/queue-page.ts). bench/console.ts with EXPLAIN ANALYZE.
 */
export const queueCounts: Migration = {
  id: '0017_queue_counts',
  async up(trx) {
    await sql`create index if not exists cases_queue_open_counts on cases (org_id, environment, queue_category) where queue_category <> 'done'`.execute(trx);
  },
};
