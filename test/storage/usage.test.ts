import { afterAll, beforeAll, expect, it } from 'vitest';
import { consumeSessionAllowance, sessionCountPlan, sessionsUsed, usageLockKey, usagePeriod } from '../../src/domain/usage/usage.ts';
import { claimKeyAndReadSessionGates } from '../../src/storage/session-creation.ts';
import { incrementUsageCounterQuery } from '../../src/storage/usage-counters.ts';
import { inTransaction, RetryUnitOfWork, withRetries } from '../../src/storage/unit-of-work.ts';
import { createTestApp, describeEachBackend, itOnPostgres, type TestApp } from '../support/harness.ts';

describeEachBackend('usage counting', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(backend);
  });
  afterAll(() => t.close());

  itOnPostgres(backend, 'is exact at the cap while creators far from it count on shards without waiting for each other', async () => {
    const ws = await t.workspace();
    const now = new Date('2026-06-15T12:00:00.000Z');
    const counter = { orgId: ws.orgId, environment: 'test' as const, now, cap: 40, nearCapMargin: 25 };
    const results = await Promise.all(
      Array.from({ length: 60 }, () =>
        withRetries(() =>
          inTransaction(t.ctx.db, async (tx) => {
            // Hold the transaction open a moment, as session creation does.
            const outcome = await consumeSessionAllowance(tx, counter);
            await new Promise((r) => setTimeout(r, 2));
            return outcome.allowed;
          }),
        5),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(40);
    expect(await inTransaction(t.ctx.db, (tx) => sessionsUsed(tx, counter))).toBe(40);
    const shards = await t.ctx.db.selectFrom('usage_counters').select(['shard', 'sessions_created']).where('org_id', '=', ws.orgId).execute();
    // The first sessions were far from the cap: more than one shard took them.
    expect(shards.length).toBeGreaterThan(1);
  });

  itOnPostgres(backend, 'is exact at the cap when session creation takes the lock in its gate read', async () => {
    // The path POST /sessions takes (storage/session-creation.ts): the lock, shared or exclusive,
    // comes with the claim and the count's first read; the count is read again in the write.
    const ws = await t.workspace();
    const now = new Date('2026-06-15T12:00:00.000Z');
    const counter = { orgId: ws.orgId, environment: 'test' as const, now };
    const cap = 40;
    const nearCapMargin = 25;
    const locks = new Set<string | null>();
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        withRetries(
          () =>
            inTransaction(t.ctx.db, async (tx) => {
              const read = await claimKeyAndReadSessionGates(tx, {
                claim: { scope: { ...counter, operation: 'usage.test', key: `k-${i}` }, fingerprint: 'f', now, expiresAt: new Date(now.getTime() + 60_000) },
                ...counter,
                period: usagePeriod(now),
                caseTypeId: 'none',
                externalCaseId: null,
                usage: { cap, nearCapMargin, lockKey: usageLockKey(counter) },
              });
              locks.add(read.usageLock);
              if (read.used >= cap) return false;
              const plan = sessionCountPlan({ ...counter, cap, lock: read.usageLock, nearCapMargin });
              const counted = (await incrementUsageCounterQuery(plan.key, plan.shard, plan.below).execute(tx)).rows.length > 0;
              await new Promise((r) => setTimeout(r, 2));
              if (!counted && plan.onRefusal === 'restart') throw new RetryUnitOfWork('near the cap');
              return counted;
            }),
          10,
        ),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(cap);
    expect(await inTransaction(t.ctx.db, (tx) => sessionsUsed(tx, counter))).toBe(cap);
    const shards = await t.ctx.db.selectFrom('usage_counters').select('shard').where('org_id', '=', ws.orgId).execute();
    expect(shards.length).toBeGreaterThan(1);
    expect(locks).toContain('shared');
    expect(locks).toContain('exclusive');
  });

  it('never caps a null cap (live without a usage cap)', async () => {
    const ws = await t.workspace();
    const now = new Date('2026-06-15T12:00:00.000Z');
    for (let i = 0; i < 5; i++) {
      expect(await inTransaction(t.ctx.db, (tx) => consumeSessionAllowance(tx, { orgId: ws.orgId, environment: 'live', now, cap: null }))).toEqual({ allowed: true });
    }
  });
});
