import { sql } from 'kysely';
import type { Executor, Tx } from './schema.ts';
import type { Tenant } from '../ports/tenant.ts';

export interface UsagePeriodKey extends Tenant {
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

/**
 * Adds one session to one shard while the month's count (as this statement sees it) is below
 * `below`; false, and nothing written, otherwise. The read and the write in one statement: the
 * far-from-cap path of session creation spends one round trip on it instead of two (issue 16).
 */
export async function incrementUsageCounterBelow(tx: Tx, key: UsagePeriodKey, shard: number, below: number): Promise<boolean> {
  const result = await incrementUsageCounterQuery(key, shard, below).execute(tx);
  return result.rows.length > 0;
}

/**
 * The increment as a statement to compose (session creation runs it as a CTE of its one write):
 * with `below`, only while the month's count as the statement sees it is below it. One row
 * returned when it counted.
 */
export function incrementUsageCounterQuery(key: UsagePeriodKey, shard: number, below: number | null) {
  // One text for both cases (it runs inside a prepared statement): a null `below` passes the guard.
  return sql<{ shard: number }>`
    insert into usage_counters (org_id, environment, period, shard, sessions_created)
    select ${key.orgId}, ${key.environment}, ${key.period}, ${shard}::int, 1
    where ${below}::int is null
       or (select coalesce(sum(sessions_created), 0) from usage_counters
           where org_id = ${key.orgId} and environment = ${key.environment} and period = ${key.period}) < ${below}::int
    on conflict (org_id, environment, period, shard) do update set sessions_created = usage_counters.sessions_created + 1
    returning shard`;
}
