import { connect } from 'node:net';
import type { RouteOptions } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/domain/errors.ts';
import { createTestApp, type TestApp, type TestWorkspace } from '../support/harness.ts';

/**
 * Issue 9 §1: generated malformed requests over every route of the real app. Whatever arrives,
 * nothing answers 5xx, and every /api/v1 refusal is the catalog envelope whose request_id is the
 * X-Request-Id header. Runs ≥ 5,000 requests through inject (no sockets).
 */
const RUNS = 5_200;

const ODD_STRINGS = [
  '', ' ', '%ZZ', '%', '%E0%A4%A', '%FF%FE', '%00', '%0a', '%7f', '%C0%AF', '..', '%2e%2e', '%2F', '\\', "'", '"', '<script>',
  'a'.repeat(101), 'b'.repeat(256), 'c'.repeat(600), '🙂', '\u202e', 'null', '-1', '1e309', 'NaN', '[]', '{}', 'case_', 'dlv_', '%uD800',
];

const pathValue = fc.oneof(
  fc.constantFrom(...ODD_STRINGS),
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  fc.string({ unit: 'binary', maxLength: 30 }).map((s) => encodeURIComponent(s)),
  fc.uint8Array({ maxLength: 12 }).map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
  fc.stringMatching(/^[a-z]{2,6}_[A-Za-z0-9]{4,30}$/),
);

function deep(depth: number, leaf: string): string {
  return '['.repeat(depth) + leaf + ']'.repeat(depth);
}

const jsonValue = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 4 }), weight: 3 },
  { arbitrary: fc.anything({ maxDepth: 3 }).map((v) => { try { return JSON.parse(JSON.stringify(v) ?? 'null'); } catch { return null; } }), weight: 1 },
);

const FIELD_NAMES = [
  'case_type_id', 'external_case_id', 'prefill', 'structured_inputs', 'document_url', 'documents', 'decision', 'reason', 'value', 'fact_id',
  'locale', 'return_url', 'metadata', 'event_type', 'endpoint_id', 'acknowledgement_id', 'limit', 'after', 'status', 'note', 'reviewer',
];

const objectBody = fc.dictionary(fc.oneof(fc.constantFrom(...FIELD_NAMES), fc.string({ maxLength: 12 })), jsonValue, { maxKeys: 6 });

const body = fc.oneof(
  { arbitrary: objectBody.map((o) => JSON.stringify(o)), weight: 6 },
  { arbitrary: jsonValue.map((v) => JSON.stringify(v)), weight: 2 },
  { arbitrary: fc.integer({ min: 20, max: 5_000 }).map((n) => `{"prefill":${deep(n, '1')}}`), weight: 1 },
  { arbitrary: fc.integer({ min: 20, max: 40 }).map((n) => `{"structured_inputs":{"a":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}}`), weight: 1 },
  { arbitrary: fc.constantFrom('{', '{"a":', '\u0000', '{"a":"\\u0000"}', '{"\\u0000":1}', '{"a":"\\ud800"}', '{"__proto__":{}}', '{"constructor":{"prototype":{}}}', 'x'.repeat(2_000)), weight: 1 },
  { arbitrary: fc.string({ maxLength: 200 }), weight: 1 },
  { arbitrary: fc.constant(undefined), weight: 1 },
);

const contentType = fc.constantFrom(
  'application/json', 'application/json', 'application/json', 'application/json; charset=utf-8', 'application/merge-patch+json', 'text/plain',
  'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', '', ';;;', 'application/*',
);

const queryString = fc.dictionary(
  fc.constantFrom('limit', 'after', 'status', 'case_type_id', 'external_case_id', 'environment', 'token', 'event_type', 'x'),
  fc.oneof(fc.constantFrom(...ODD_STRINGS), fc.string({ maxLength: 20 }).map(encodeURIComponent), fc.integer().map(String)),
  { maxKeys: 3 },
).map((q) => Object.entries(q).map(([k, v]) => `${k}=${v}`).join('&'));

describe('generated malformed requests', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  const routes: RouteOptions[] = [];
  const codes = new Set<string>(ERROR_CODES);

  beforeAll(async () => {
    t = await createTestApp('embedded', {
      env: { METRICS_TOKEN: 'metrics-token-0123456789', APP_URL: 'http://127.0.0.1:3000/app', RATE_LIMIT_PER_MINUTE: '1000000', TEST_SESSIONS_PER_MONTH: '1000000' },
      onRoute: (route) => routes.push(route),
    });
    ws = await t.workspace();
  });
  afterAll(() => t.close());

  it(`answers ${RUNS} generated requests over every route without a 5xx, each /api/v1 refusal in the envelope`, async () => {
    const targets = [...new Map(routes.map((r) => [`${String(r.method)} ${r.url}`, r])).values()];
    expect(targets.length).toBeGreaterThan(30);
    const authorization = fc.oneof(
      { arbitrary: fc.constant(`Bearer ${ws.key}`), weight: 6 },
      { arbitrary: fc.constantFrom(undefined, '', 'Bearer', 'Bearer ', `Basic ${ws.key}`, `Bearer ${ws.key}x`, `Bearer sk_test_${'A'.repeat(43)}`, `Bearer sk_live_${'A'.repeat(43)}`, 'Bearer \u00ff'), weight: 2 },
      { arbitrary: fc.string({ maxLength: 80 }).map((s) => `Bearer ${s.replace(/[^\x20-\x7e]/g, '')}`), weight: 1 },
    );
    const byLabel = new Map(targets.map((r) => [`${String(r.method)} ${r.url}`, r]));
    const request = fc.record({
      route: fc.constantFrom(...byLabel.keys()).map((label) => byLabel.get(label)!),
      params: fc.array(pathValue, { minLength: 4, maxLength: 4 }),
      method: fc.oneof({ arbitrary: fc.constant(undefined), weight: 8 }, { arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'SEARCH'), weight: 2 }),
      query: queryString,
      authorization,
      contentType,
      body,
      idempotencyKey: fc.option(fc.oneof(fc.string({ maxLength: 300 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')), fc.uuid()), { nil: undefined }),
    });

    const seen = { requests: 0, byStatus: new Map<number, number>() };
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        let i = 0;
        const url = r.route.url.replace(/:[a-z_]+/g, () => r.params[i++] ?? 'x').replace('*', r.params[3] ?? '') + (r.query ? `?${r.query}` : '');
        const method = String(r.method ?? (Array.isArray(r.route.method) ? r.route.method[0] : r.route.method)) as 'GET' | 'HEAD' | 'POST';
        const headers: Record<string, string> = {};
        if (r.authorization !== undefined) headers.authorization = r.authorization;
        if (r.idempotencyKey !== undefined) headers['idempotency-key'] = r.idempotencyKey;
        if (r.body !== undefined && r.contentType) headers['content-type'] = r.contentType;
        const res = await t.app.inject({ method, url, headers, ...(r.body !== undefined && method !== 'GET' && method !== 'HEAD' ? { payload: r.body } : {}) });
        seen.requests++;
        seen.byStatus.set(res.statusCode, (seen.byStatus.get(res.statusCode) ?? 0) + 1);
        const context = `${method} ${url.slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
        expect(res.statusCode, context).toBeLessThan(500);
        const requestId = res.headers['x-request-id'];
        expect(requestId, context).toMatch(/^req_/);
        if (url.startsWith('/api/v1') && res.statusCode >= 400 && method !== 'HEAD') {
          const envelope = res.json() as { error: { code: string; request_id: string; type: string; message: string } };
          expect(Object.keys(envelope), context).toEqual(['error']);
          expect(codes.has(envelope.error.code), context).toBe(true);
          expect(envelope.error.request_id, context).toBe(requestId);
        }
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
    expect(seen.requests).toBeGreaterThanOrEqual(5_000);
    // The valid key must get bodies through to validation and handlers, not only 401s.
    expect([...seen.byStatus].filter(([status]) => status !== 401).reduce((n, [, c]) => n + c, 0)).toBeGreaterThan(RUNS / 2);
  }, 240_000);

  it('answers the router refusals named in the issue with the envelope', async () => {
    const headers = { authorization: `Bearer ${ws.key}` };
    for (const [url, status, code] of [
      [`/api/v1/cases/${'a'.repeat(600)}`, 404, 'not_found'],
      [`/api/v1/cases/${'a'.repeat(150)}`, 404, 'not_found'],
      ['/api/v1/cases/%ZZ/decision', 404, 'not_found'],
      ['/api/v1/cases/%FF%FE', 404, 'not_found'],
      ['/api/v1/cases/%00', 404, 'not_found'],
      ['/api/v1/cases/%00/package', 404, 'not_found'],
      ['/api/v1/cases/a%0Ab/events', 404, 'not_found'],
      ['/api/v1/webhooks/deliveries/%01', 404, 'not_found'],
      ['/api/v1/cases?after=%00', 400, 'invalid_request'],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url, headers });
      expect(res.statusCode, url).toBe(status);
      expect(res.json().error.code, url).toBe(code);
      expect(res.json().error.request_id, url).toBe(res.headers['x-request-id']);
    }
  });

  it('refuses JSON nested deeper than 32 levels before it reaches any recursive code', async () => {
    const send = (payload: string) =>
      t.app.inject({ method: 'POST', url: '/api/v1/sessions', headers: { authorization: `Bearer ${ws.key}`, 'content-type': 'application/json', 'idempotency-key': `k-${payload.length}` }, payload });
    for (const n of [33, 100, 100_000]) {
      const res = await send(`{"case_type_id":"x","prefill":${deep(n, '1')}}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/32 levels/) });
    }
    // Brackets inside strings are text, not nesting.
    const res = await send(`{"case_type_id":"${'['.repeat(100)}"}`);
    expect(res.json().error.message).not.toMatch(/32 levels/);
    const nul = await send('{"case_type_id":"a\\u0000b"}');
    expect(nul.statusCode).toBe(400);
    expect(nul.json().error.code).toBe('invalid_request');
  });

  it('answers the HTTP parser refusals (header overflow, unknown method) with the envelope on a real socket', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const raw = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(text));
        let out = '';
        socket.on('data', (chunk) => (out += chunk.toString()));
        socket.on('close', () => resolve(out));
        socket.on('error', reject);
      });
    for (const request of [
      `GET /api/v1/cases HTTP/1.1\r\nHost: x\r\nX-Pad: ${'p'.repeat(20_000)}\r\n\r\n`,
      'FOO /api/v1/cases HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /api/v1/cases HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
    ]) {
      const answer = await raw(request);
      const [head, body] = answer.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 400 /);
      const id = /x-request-id: (\S+)/i.exec(head ?? '')?.[1];
      expect(id).toMatch(/^req_/);
      expect(JSON.parse(body ?? '')).toEqual({ error: { type: 'validation_error', code: 'invalid_request', message: expect.any(String), request_id: id } });
    }
  });
});
