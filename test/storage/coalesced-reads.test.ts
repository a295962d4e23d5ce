import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coalescedLookup } from '../../src/storage/coalesced-reads.ts';
import { claimIdempotencyKey, findCommittedIdempotencyRecord } from '../../src/storage/idempotency.ts';
import type { Executor } from '../../src/storage/schema.ts';
import { inTransaction } from '../../src/storage/unit-of-work.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';

describe('coalescedLookup', () => {
  const db = {} as Executor;

  it('answers concurrent lookups with one read of their distinct keys, and each its own row', async () => {
    const reads: string[][] = [];
    const lookUp = coalescedLookup<string, string>(async (_db, keys) => {
      reads.push(keys);
      return new Map(keys.filter((k) => k !== 'missing').map((k) => [k, `row:${k}`]));
    }, (k) => k);
    const answers = await Promise.all(['a', 'b', 'a', 'missing'].map((k) => lookUp(db, k)));
    expect(answers).toEqual(['row:a', 'row:b', 'row:a', undefined]);
    expect(reads).toEqual([['a', 'b', 'missing']]);
    // A lookup after the batch went out starts a batch of its own.
    expect(await lookUp(db, 'c')).toBe('row:c');
    expect(reads).toHaveLength(2);
  });

  it('fails every lookup of a batch whose read failed, and the next batch reads again', async () => {
    let fail = true;
    const lookUp = coalescedLookup<string, string>(async (_db, keys) => {
      if (fail) throw new Error('database went away');
      return new Map(keys.map((k) => [k, k]));
    }, (k) => k);
    const results = await Promise.allSettled([lookUp(db, 'a'), lookUp(db, 'b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await lookUp(db, 'a')).toBe('a');
  });

  it('keeps separate batches for separate database handles', async () => {
    const seen: Executor[] = [];
    const lookUp = coalescedLookup<string, string>(async (handle, keys) => {
      seen.push(handle);
      return new Map(keys.map((k) => [k, k]));
    }, (k) => k);
    const other = {} as Executor;
    await Promise.all([lookUp(db, 'a'), lookUp(other, 'a')]);
    expect(seen).toHaveLength(2);
    expect(new Set(seen).size).toBe(2);
  });
});

describeEachBackend('idempotent replays read coalesced', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  beforeAll(async () => {
    t = await createTestApp(backend);
    ws = await t.workspace();
  });
  afterAll(() => t.close());

  it('concurrent replay reads of several keys and workspaces share one statement and get their own records', async () => {
    const now = new Date();
    const later = new Date(now.getTime() + 60_000);
    const scope = (key: string, orgId = ws.orgId) => ({ orgId, environment: 'test' as const, operation: 'sessions.create', key });
    await inTransaction(t.ctx.db, async (tx) => {
      await claimIdempotencyKey(tx, scope('k1'), 'f1', now, later);
      await claimIdempotencyKey(tx, scope('k2'), 'f2', now, later);
    });
    const before = t.runtime.database.poolStats().statements;
    const found = await Promise.all([
      findCommittedIdempotencyRecord(t.ctx.db, scope('k1')),
      findCommittedIdempotencyRecord(t.ctx.db, scope('k2')),
      findCommittedIdempotencyRecord(t.ctx.db, scope('k1', 'org_other')),
      findCommittedIdempotencyRecord(t.ctx.db, scope('k3')),
    ]);
    expect(t.runtime.database.poolStats().statements - before).toBe(1);
    expect(found.map((r) => r?.fingerprint)).toEqual(['f1', 'f2', undefined, undefined]);
    expect(found[0]?.expires_at).toBeInstanceOf(Date);
  });
});
