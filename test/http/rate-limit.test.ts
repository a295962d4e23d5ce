import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.ts';
import { redisRateLimitStore } from '../../src/ports/rate-limit-store.ts';
import { createTestApp, describeEachBackend, freshDatabase, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { probeRoutes } from '../support/probe-routes.ts';
import { postgresUrlForSchema, runCli, startProcess } from '../support/processes.ts';

describeEachBackend('rate limits', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  // 10 s into a UTC minute: the window resets at 12:01:00.
  const clock = new ManualClock('2026-05-01T12:00:10.000Z');
  const windowEnd = Date.parse('2026-05-01T12:01:00.000Z') / 1000;

  beforeAll(async () => {
    t = await createTestApp(backend, { clock, env: { RATE_LIMIT_PER_MINUTE: '4' }, routes: probeRoutes });
    ws = await t.workspace();
  });
  afterAll(() => t.close());

  const read = (key: string) => t.app.inject({ method: 'GET', url: '/api/v1/_probe/read', headers: { authorization: `Bearer ${key}` } });

  it('counts down within a UTC-minute window, then answers 429 with Retry-After', async () => {
    const key = await t.createKey(ws.orgId, { rateLimitPerMinute: 3 });
    for (const remaining of [2, 1, 0]) {
      const res = await read(key.key);
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('3');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(remaining));
      expect(res.headers['x-ratelimit-reset']).toBe(String(windowEnd));
    }
    const limited = await read(key.key);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect(limited.headers['retry-after']).toBe('50');
    expect(limited.headers['x-ratelimit-limit']).toBe('3');
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(limited.headers['x-ratelimit-reset']).toBe(String(windowEnd));

    clock.set('2026-05-01T12:01:00.000Z');
    const next = await read(key.key);
    expect(next.statusCode).toBe(200);
    expect(next.headers['x-ratelimit-remaining']).toBe('2');
    expect(next.headers['x-ratelimit-reset']).toBe(String(windowEnd + 60));
    clock.set('2026-05-01T12:00:10.000Z');
  });

  it('uses RATE_LIMIT_PER_MINUTE for keys without their own limit, per key', async () => {
    const a = await t.createKey(ws.orgId);
    const b = await t.createKey(ws.orgId);
    for (let i = 0; i < 4; i++) expect((await read(a.key)).statusCode).toBe(200);
    expect((await read(a.key)).statusCode).toBe(429);
    const other = await read(b.key);
    expect(other.statusCode).toBe(200);
    expect(other.headers['x-ratelimit-limit']).toBe('4');
    expect(other.headers['x-ratelimit-remaining']).toBe('3');
  });

  it('does not count requests refused before the limit (bad key)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/_probe/read', headers: { authorization: 'Bearer nope' } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

describe('rate limits in Redis', () => {
  const redisUrl = inject('redisUrl');
  const postgresUrl = inject('postgresUrl');

  it.runIf(redisUrl)('shares one budget between two in-process stores', async () => {
    const a = await redisRateLimitStore(redisUrl!);
    const b = await redisRateLimitStore(redisUrl!);
    try {
      const bucket = `shared-${Math.random()}`;
      expect(await a.hit(bucket, 60)).toBe(1);
      expect(await b.hit(bucket, 60)).toBe(2);
      expect(await a.hit(bucket, 60)).toBe(3);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it.runIf(redisUrl && postgresUrl)(
    'two server processes sharing Redis share one budget',
    async () => {
      // Keep the whole exchange inside one UTC minute.
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));

      const db = await freshDatabase('postgres');
      if (db.target.kind !== 'postgres') throw new Error('expected postgres');
      const env = { DATABASE_URL: postgresUrlForSchema(db.target.url, db.target.schema!), REDIS_URL: redisUrl!, DOSSIER_SECRET: 'x'.repeat(40) };
      const migrated = await runCli(['migrate', '--json'], env);
      expect(migrated.code, migrated.stderr + migrated.stdout).toBe(0);
      const org = (await runCli(['org', 'create', '--name', 'Shared', '--json'], env)).json();
      const key = (await runCli(['key', 'create', '--org', String(org.org_id), '--env', 'test', '--scopes', '*', '--rate-limit', '5', '--json'], env)).json();

      const [one, two] = await Promise.all([startProcess(['serve', '--no-worker'], env), startProcess(['serve', '--no-worker'], env)]);
      try {
        const statuses: number[] = [];
        const remaining: string[] = [];
        for (let i = 0; i < 8; i++) {
          const server = i % 2 === 0 ? one : two;
          const res = await fetch(`${server.url}/api/v1/cases/case_missing`, { headers: { authorization: `Bearer ${String(key.key)}` } });
          statuses.push(res.status);
          remaining.push(res.headers.get('x-ratelimit-remaining') ?? '');
        }
        // Five requests across both processes fit; the rest are refused, whichever process answers.
        expect(statuses.filter((s) => s === 429)).toHaveLength(3);
        expect(statuses.slice(5)).toEqual([429, 429, 429]);
        expect(remaining.slice(0, 5)).toEqual(['4', '3', '2', '1', '0']);
      } finally {
        expect(await one.stop()).toBe(0);
        expect(await two.stop()).toBe(0);
        await db.dispose();
      }
    },
    120_000,
  );
});
