import type { Environment } from '../../config.ts';
import type { Executor, Tx } from '../../storage/schema.ts';
import { inTransaction, lockTransactionKey, RetryUnitOfWork } from '../../storage/unit-of-work.ts';
import { incrementUsageCounter, incrementUsageCounterBelow, sumUsageCounters, type UsagePeriodKey } from '../../storage/usage-counters.ts';

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
export const NEAR_CAP_MARGIN = 500;

interface Counter {
  orgId: string;
  environment: Environment;
  now: Date;
}

export function usageLockKey(c: Counter): string {
  return `usage:${c.orgId}:${c.environment}:${usagePeriod(c.now)}`;
}

/** Sessions counted so far this month (committed ones, as this transaction sees them). */
export async function sessionsUsed(tx: Tx, input: Counter): Promise<number> {
  return sumUsageCounters(tx, periodKey(input));
}

function periodKey(c: Counter) {
  return { orgId: c.orgId, environment: c.environment, period: usagePeriod(c.now) };
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
  const shard = Math.floor(Math.random() * SHARDS);
  // No cap: nothing to be exact about, so no lock (exclusive holders exist only near a cap).
  if (input.cap === null) {
    await incrementUsageCounter(tx, periodKey(input), shard);
    return { allowed: true };
  }
  if (farFromCap) {
    await lockTransactionKey(tx, usageLockKey(input), 'shared');
    // Re-read under the lock, in the increment's own statement: exclusive holders may have
    // brought the count near the cap meanwhile.
    if (await incrementUsageCounterBelow(tx, periodKey(input), shard, input.cap - margin)) return { allowed: true };
    // Upgrading a shared lock we hold to exclusive can deadlock with another upgrader: start over.
    throw new RetryUnitOfWork('usage count crossed the near-cap margin');
  }
  await lockTransactionKey(tx, usageLockKey(input));
  if ((await sessionsUsed(tx, input)) >= input.cap!) return { allowed: false };
  await incrementUsageCounter(tx, periodKey(input), 0);
  return { allowed: true };
}

/**
 * How a session creation that took the usage lock in its gate read (storage/session-creation.ts)
 * counts itself: the same rule as `consumeSessionAllowance`, with the lock already held. Under the
 * shared lock the count must stay below `cap - margin` (else the transaction restarts, and then
 * finds itself near the cap and takes the lock exclusively); under the exclusive lock below the cap
 * itself, exactly.
 */
export function sessionCountPlan(
  input: Counter & { cap: number | null; lock: 'shared' | 'exclusive' | null; nearCapMargin?: number },
): { key: UsagePeriodKey; shard: number; below: number | null; onRefusal: 'restart' | 'cap_reached' } {
  const key = periodKey(input);
  if (input.cap === null) return { key, shard: Math.floor(Math.random() * SHARDS), below: null, onRefusal: 'cap_reached' };
  if (input.lock === 'shared') return { key, shard: Math.floor(Math.random() * SHARDS), below: input.cap - (input.nearCapMargin ?? NEAR_CAP_MARGIN), onRefusal: 'restart' };
  if (input.lock === 'exclusive') return { key, shard: 0, below: input.cap, onRefusal: 'cap_reached' };
  throw new Error('a capped session count needs the usage lock');
}

export interface MonthlyUsage {
  /** `YYYY-MM`, UTC. */
  period: string;
  test: { used: number; cap: number };
  live: { used: number; cap: number | null };
}

/** Sessions created this UTC month in each environment, against their caps (what the gates count). */
export async function monthlyUsage(
  deps: { db: Executor; clock: { now(): Date } },
  input: { orgId: string; testCap: number; liveCap: number | null },
): Promise<MonthlyUsage> {
  const now = deps.clock.now();
  return inTransaction(deps.db, async (tx) => ({
    period: usagePeriod(now),
    test: { used: await sessionsUsed(tx, { orgId: input.orgId, environment: 'test', now }), cap: input.testCap },
    live: { used: await sessionsUsed(tx, { orgId: input.orgId, environment: 'live', now }), cap: input.liveCap },
  }));
}
