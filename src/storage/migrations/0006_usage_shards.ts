import { sql } from 'kysely';
import type { Migration } from './index.ts';

/**
 * Spreads each month's usage counter over shards, so sessions of one workspace far from its cap
 * do not queue behind a single row lock held until commit.
 */
export const usageShards: Migration = {
  id: '0006_usage_shards',
  async up(trx) {
    await sql`alter table usage_counters add column shard integer not null default 0`.execute(trx);
    await sql`alter table usage_counters drop constraint usage_counters_pkey`.execute(trx);
    await sql`alter table usage_counters add primary key (org_id, environment, period, shard)`.execute(trx);
  },
};
