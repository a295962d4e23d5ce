import { execFileSync, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { redisRateLimitStore } from '../../src/ports/rate-limit-store.ts';
import { createTestApp, until } from '../support/harness.ts';
import { parseExposition } from './exposition.ts';

/** A port nothing listens on: taken from the system, then let go. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A pino logger whose lines the test can read. */
function capturedLogger() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;
// Like PostgreSQL, Redis and Chromium: required under CI=true, so the recovery test cannot silently skip.
if (!hasRedisServer && process.env.CI === 'true') throw new Error('redis-server is required under CI=true (apt-get install redis-server)');

describe('rate limiting when Redis is down', () => {
  const started: number[] = [];
  afterAll(() => {
    for (const port of started) spawnSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave']);
  });

  it('counts in process memory with a logged warning when nothing listens at REDIS_URL', async () => {
    const port = await freePort();
    const { logger, lines } = capturedLogger();
    const store = await redisRateLimitStore(`redis://127.0.0.1:${port}`, logger);
    try {
      expect(store.degraded()).toBe(true);
      expect([await store.hit('bucket', 60), await store.hit('bucket', 60), await store.hit('other', 60)]).toEqual([1, 2, 1]);
      expect(lines.some((l) => l.level === 40 && l.msg.includes('counting in-process'))).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('keeps answering API requests, still limited per process, and says so on /metrics', async () => {
    const port = await freePort();
    const t = await createTestApp('embedded', { env: { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: '3', METRICS_TOKEN: 'redis-fallback-metrics-token' } });
    try {
      const ws = await t.workspace();
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await t.app.inject({ method: 'GET', url: '/api/v1/cases/case_missing', headers: { authorization: `Bearer ${ws.key}` } });
        statuses.push(res.statusCode);
      }
      expect(statuses).toEqual([404, 404, 404, 429, 429]);
      const metrics = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer redis-fallback-metrics-token' } });
      expect(parseExposition(metrics.body).find((s) => s.name === 'dossier_rate_limit_store_degraded')?.value).toBe(1);
    } finally {
      await t.close();
    }
  });

  // A Redis of the test's own on a spare port, stopped and started again under a live store.
  it.runIf(hasRedisServer)('recovers when Redis comes back, and falls back again when it goes', async () => {
    const port = await freePort();
    const startRedis = () => {
      execFileSync('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'yes']);
      started.push(port);
    };
    const stopRedis = () => spawnSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave']);
    const { logger, lines } = capturedLogger();
    const store = await redisRateLimitStore(`redis://127.0.0.1:${port}`, logger);
    const probe = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      expect(store.degraded()).toBe(true);
      expect(await store.hit('before', 60)).toBe(1);

      startRedis();
      await until(() => !store.degraded(), 15_000);
      expect(lines.some((l) => l.msg.includes('reachable again'))).toBe(true);
      // Counted in Redis now, where every process sees the same number.
      expect(await store.hit('shared', 60)).toBe(1);
      expect(await store.hit('shared', 60)).toBe(2);
      await probe.connect();
      expect(Number(await probe.get('dossier:rl:shared'))).toBe(2);
      probe.disconnect();

      stopRedis();
      await until(() => store.degraded(), 15_000);
      // Requests are still counted, in memory; none fails because Redis is gone.
      expect(await store.hit('during', 60)).toBe(1);
      expect(await store.hit('during', 60)).toBe(2);

      startRedis();
      await until(() => !store.degraded(), 15_000);
      expect(await store.hit('after', 60)).toBe(1);
      const again = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 0 });
      expect(await again.get('dossier:rl:after')).toBe('1');
      again.disconnect();
    } finally {
      probe.disconnect();
      await store.close();
      stopRedis();
    }
  }, 60_000);
});
