import { afterAll, beforeAll, expect, it } from 'vitest';
import { consumeSessionAllowance, sessionsUsed } from '../../src/domain/usage/usage.ts';
import { inTransaction, withRetries } from '../../src/storage/unit-of-work.ts';
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

  it('never caps a null cap (live without a usage cap)', async () => {
    const ws = await t.workspace();
    const now = new Date('2026-06-15T12:00:00.000Z');
    for (let i = 0; i < 5; i++) {
      expect(await inTransaction(t.ctx.db, (tx) => consumeSessionAllowance(tx, { orgId: ws.orgId, environment: 'live', now, cap: null }))).toEqual({ allowed: true });
    }
  });
});
