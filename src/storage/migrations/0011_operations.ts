import { sql } from 'kysely';
import type { Migration } from './index.ts';

/**
 * Indexes for the retention sweeps and the queue gauges of /metrics. `if not exists`, so a large
 * deployment can build them beforehand with `create index concurrently` under the same names (a
 * plain build blocks writes to the table while it runs; docs/operations.md says how).
 */
export const operations: Migration = {
  id: '0011_operations',
  async up(trx) {
    // Webhook retention walks finished deliveries oldest first; the failed count is read at every scrape.
    await sql`create index if not exists webhook_deliveries_finished on webhook_deliveries (status, updated_at)
      where status in ('delivered', 'failed')`.execute(trx);
    // Document retention walks completed cases by completion time.
    await sql`create index if not exists cases_completed on cases (completed_at) where runtime_status = 'complete'`.execute(trx);
    // Failed case jobs per kind, read at every scrape (queued and running ones use case_jobs_due).
    await sql`create index if not exists case_jobs_failed on case_jobs (kind) where status = 'failed'`.execute(trx);
  },
};
