import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';

// Issue 9 §5: failed authentication is limited per client address, before any database work.
describeEachBackend('failed authentication limit', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  const clock = new ManualClock('2026-03-10T10:00:05.000Z');
  let lookups = 0;

  beforeAll(async () => {
    t = await createTestApp(backend, { clock, env: { AUTH_FAILURES_PER_MINUTE: '5' } });
    ws = await t.workspace();
    const find = t.ctx.keys.find.bind(t.ctx.keys);
    t.ctx.keys.find = async (hash) => {
      lookups++;
      return find(hash);
    };
  });
  afterAll(() => t.close());

  const call = (key: string, remoteAddress = '203.0.113.7') =>
    t.app.inject({ method: 'GET', url: '/api/v1/cases', headers: { authorization: `Bearer ${key}` }, remoteAddress });
  const unknown = `sk_test_${'U'.repeat(43)}`;

  it('answers 429 rate_limit_exceeded with Retry-After after the budget, without looking the key up', async () => {
    for (let i = 0; i < 5; i++) expect((await call(unknown)).statusCode).toBe(401);
    const before = lookups;
    for (const key of [unknown, ws.key, 'garbage']) {
      const res = await call(key);
      expect(res.statusCode).toBe(429);
      expect(res.json().error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', request_id: res.headers['x-request-id'] });
      expect(res.headers['retry-after']).toBe('55');
    }
    expect(lookups).toBe(before);
  });

  it('limits each address on its own, and forgets at the next window', async () => {
    expect((await call(ws.key, '198.51.100.20')).statusCode).toBe(200);
    expect((await call(ws.key)).statusCode).toBe(429);
    clock.advance(60_000);
    expect((await call(ws.key)).statusCode).toBe(200);
  });

  it('counts only failures: successful requests never use the budget', async () => {
    clock.advance(60_000);
    for (let i = 0; i < 20; i++) expect((await call(ws.key, '192.0.2.44')).statusCode).toBe(200);
  });
});
