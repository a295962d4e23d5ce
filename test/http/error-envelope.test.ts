import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { probeRoutes } from '../support/probe-routes.ts';

describeEachBackend('error envelope', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  beforeAll(async () => {
    t = await createTestApp(backend, { routes: probeRoutes });
    ws = await t.workspace();
  });
  afterAll(() => t.close());

  const echo = (payload: string | Buffer, contentType = 'application/json') =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/_probe/echo',
      headers: { authorization: `Bearer ${ws.key}`, 'content-type': contentType },
      payload,
    });

  function expectError(res: Awaited<ReturnType<typeof echo>>, status: number, code: string) {
    expect(res.statusCode).toBe(status);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['error']);
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'request_id', 'type']);
    expect(body.error.code).toBe(code);
    expect(body.error.message.length).toBeGreaterThan(5);
    expect(body.error.request_id).toMatch(/^req_/);
    expect(body.error.request_id).toBe(res.headers['x-request-id']);
    return body.error;
  }

  it('answers unknown routes under /api/v1 with 404 not_found', async () => {
    for (const [method, url] of [
      ['GET', '/api/v1/nothing-here'],
      ['POST', '/api/v1/cases/x/unknown'],
      ['DELETE', '/api/v1/openapi.json'],
      ['GET', '/api/v2/cases'],
    ] as const) {
      const res = await t.app.inject({ method, url });
      expect(expectError(res, 404, 'not_found').type).toBe('not_found');
    }
  });

  it('accepts a JSON object body', async () => {
    const res = await echo('{"a":1}');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ body: { a: 1 } });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('answers unparseable JSON with 400 invalid_json', async () => {
    expectError(await echo('{"a":'), 400, 'invalid_json');
    expectError(await echo(''), 400, 'invalid_json');
    expectError(await echo('{"a":1}}'), 400, 'invalid_json');
  });

  it('answers a body that is not an object with 400 invalid_request', async () => {
    for (const payload of ['[1,2]', '"text"', '42', 'null', 'true']) {
      expectError(await echo(payload), 400, 'invalid_request');
    }
  });

  it('answers a wrong content type with 400 invalid_request', async () => {
    expectError(await echo('a=1', 'application/x-www-form-urlencoded'), 400, 'invalid_request');
    expectError(await echo('{"a":1}', 'text/plain'), 400, 'invalid_request');
  });

  it('answers a body over 1 MiB with 400 invalid_request', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
    const error = expectError(await echo(big), 400, 'invalid_request');
    expect(error.message).toMatch(/1 MiB/);
  });

  it('refuses prototype pollution', async () => {
    expectError(await echo('{"__proto__":{"admin":true}}'), 400, 'invalid_json');
  });

  it('answers an unexpected failure with 500 internal_error and no internals', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/_probe/boom' });
    const error = expectError(res, 500, 'internal_error');
    expect(error.type).toBe('internal_error');
    expect(res.body).not.toMatch(/secret internal detail|\.ts:|at /);
  });

  it('puts X-Request-Id on every response, unique per request', async () => {
    const a = await t.app.inject({ method: 'GET', url: '/healthz' });
    const b = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(a.headers['x-request-id']).toMatch(/^req_/);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });
});

it('logs a 500 with its request id and never a key', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const { pino } = await import('pino');
  const { createTestApp: create } = await import('../support/harness.ts');
  const logger = pino({ level: 'info' }, sink);
  const t = await create('embedded', { routes: probeRoutes, logger });
  try {
    const ws = await t.workspace();
    await t.app.inject({ method: 'GET', url: '/api/v1/_probe/read', headers: { authorization: `Bearer ${ws.key}` } });
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/_probe/boom?token=abc123secret' });
    const requestId = res.json().error.request_id;
    const text = lines.join('');
    const failure = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'unhandled error');
    expect(failure.request_id).toBe(requestId);
    expect(failure.err.message).toContain('secret internal detail');
    expect(text).not.toContain(ws.key);
    expect(text).not.toContain('abc123secret');
  } finally {
    await t.close();
  }
});
