import { sql } from 'kysely';
import type { Environment } from '../config.ts';
import type { Executor, Tx } from './schema.ts';

export interface UsagePeriodKey {
  orgId: string;
  environment: Environment;
  /** UTC month, `YYYY-MM`. */
  period: string;
}

/** Sessions counted for the month over all shards (committed ones, as this transaction sees them). */
export async function sumUsageCounters(db: Executor, key: UsagePeriodKey): Promise<number> {
  const row = await db
    .selectFrom('usage_counters')
    .select(sql<number>`coalesce(sum(sessions_created), 0)::int`.as('used'))
    .where('org_id', '=', key.orgId)
    .where('environment', '=', key.environment)
    .where('period', '=', key.period)
    .executeTakeFirst();
  return row?.used ?? 0;
}

/** Adds one session to one shard of the month's count. */
export async function incrementUsageCounter(tx: Tx, key: UsagePeriodKey, shard: number): Promise<void> {
  await tx
    .insertInto('usage_counters')
    .values({ org_id: key.orgId, environment: key.environment, period: key.period, shard, sessions_created: 1 })
    .onConflict((oc) => oc.columns(['org_id', 'environment', 'period', 'shard']).doUpdateSet({ sessions_created: sql`usage_counters.sessions_created + 1` }))
    .execute();
}
