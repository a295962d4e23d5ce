import { sql } from 'kysely';
import type { Environment } from '../../config.ts';
import type { Tx } from '../../storage/schema.ts';

/** The UTC calendar month a moment falls in, `YYYY-MM`: the test cap resets at its start. */
export function usagePeriod(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/**
 * Counts one session against `cap` for the month, atomically: the conditional upsert takes the
 * counter row lock, so concurrent creators are serialised and the cap is exact. Runs in the
 * session's transaction, so a rolled-back creation gives its allowance back.
 */
export async function consumeSessionAllowance(
  tx: Tx,
  input: { orgId: string; environment: Environment; now: Date; cap: number | null },
): Promise<{ allowed: boolean; used: number }> {
  const period = usagePeriod(input.now);
  if (input.cap !== null && input.cap <= 0) return { allowed: false, used: 0 };
  const row = await tx
    .insertInto('usage_counters')
    .values({ org_id: input.orgId, environment: input.environment, period, sessions_created: 1 })
    .onConflict((oc) => {
      const update = oc.columns(['org_id', 'environment', 'period']).doUpdateSet({ sessions_created: sql`usage_counters.sessions_created + 1` });
      return input.cap === null ? update : update.where('usage_counters.sessions_created', '<', input.cap);
    })
    .returning('sessions_created')
    .executeTakeFirst();
  return row ? { allowed: true, used: row.sessions_created } : { allowed: false, used: input.cap ?? 0 };
}

/** Sessions counted so far this month (a read: the binding check is `consumeSessionAllowance`). */
export async function sessionsUsed(tx: Tx, input: { orgId: string; environment: Environment; now: Date }): Promise<number> {
  const row = await tx
    .selectFrom('usage_counters')
    .select('sessions_created')
    .where('org_id', '=', input.orgId)
    .where('environment', '=', input.environment)
    .where('period', '=', usagePeriod(input.now))
    .executeTakeFirst();
  return row?.sessions_created ?? 0;
}
