import { sql } from 'kysely';
import type { Environment } from '../../config.ts';
import type { Tx } from '../../storage/schema.ts';
import { RetryUnitOfWork } from '../../storage/unit-of-work.ts';

/** The UTC calendar month a moment falls in, `YYYY-MM`: the test cap resets at its start. */
export function usagePeriod(now: Date): string {
  return now.toISOString().slice(0, 7);
}

const SHARDS = 16;
/**
 * Below `cap - NEAR_CAP_MARGIN` committed sessions, creators count on a random shard under a
 * shared lock and never wait for each other; nearer the cap they take the lock exclusively, which
 * first waits for every shared holder to commit, then count exactly. The margin only decides when
 * to switch; exactness comes from the lock.
 */
const NEAR_CAP_MARGIN = 500;

interface Counter {
  orgId: string;
  environment: Environment;
  now: Date;
}

function lockKey(c: Counter): string {
  return `usage:${c.orgId}:${c.environment}:${usagePeriod(c.now)}`;
}

/** Sessions counted so far this month (committed ones, as this transaction sees them). */
export async function sessionsUsed(tx: Tx, input: Counter): Promise<number> {
  const row = await tx
    .selectFrom('usage_counters')
    .select(sql<number>`coalesce(sum(sessions_created), 0)::int`.as('used'))
    .where('org_id', '=', input.orgId)
    .where('environment', '=', input.environment)
    .where('period', '=', usagePeriod(input.now))
    .executeTakeFirst();
  return row?.used ?? 0;
}

async function increment(tx: Tx, input: Counter, shard: number): Promise<void> {
  await tx
    .insertInto('usage_counters')
    .values({ org_id: input.orgId, environment: input.environment, period: usagePeriod(input.now), shard, sessions_created: 1 })
    .onConflict((oc) => oc.columns(['org_id', 'environment', 'period', 'shard']).doUpdateSet({ sessions_created: sql`usage_counters.sessions_created + 1` }))
    .execute();
}

/**
 * Counts one session against `cap` (null: no cap) for the month, inside the session's
 * transaction, so a rolled-back creation gives its allowance back. Exact under concurrency.
 */
export async function consumeSessionAllowance(
  tx: Tx,
  input: Counter & {
    cap: number | null;
    nearCapMargin?: number;
    /** A count this transaction already read (the gate's): spares reading it again. */
    usedSoFar?: number;
  },
): Promise<{ allowed: boolean }> {
  if (input.cap !== null && input.cap <= 0) return { allowed: false };
  const margin = input.nearCapMargin ?? NEAR_CAP_MARGIN;
  const farFromCap = input.cap === null || (input.usedSoFar ?? (await sessionsUsed(tx, input))) + margin < input.cap;
  if (farFromCap) {
    await sql`select pg_advisory_xact_lock_shared(hashtext(${lockKey(input)}))`.execute(tx);
    // Re-read under the lock: exclusive holders may have brought the count near the cap meanwhile.
    if (input.cap === null || (await sessionsUsed(tx, input)) + margin < input.cap) {
      await increment(tx, input, Math.floor(Math.random() * SHARDS));
      return { allowed: true };
    }
    // Upgrading a shared lock we hold to exclusive can deadlock with another upgrader: start over.
    throw new RetryUnitOfWork('usage count crossed the near-cap margin');
  }
  await sql`select pg_advisory_xact_lock(hashtext(${lockKey(input)}))`.execute(tx);
  if ((await sessionsUsed(tx, input)) >= input.cap!) return { allowed: false };
  await increment(tx, input, 0);
  return { allowed: true };
}
