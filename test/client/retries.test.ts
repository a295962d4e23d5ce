import {
  AuthenticationError,
  AuthorizationError,
  BillingError,
  Dossier,
  DossierConnectionError,
  DossierError,
  DossierTimeoutError,
  InternalError,
  NotFoundError,
  PreconditionError,
  RateLimitError,
  ValidationError,
  type DossierOptions,
} from '@dossier/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { until } from '../support/harness.ts';
import { envelope, RecordingClock, startScriptedServer, type ScriptedServer } from './scripted-server.ts';

/** 2027-01-15T08:00:00Z: the scripted reset times are counted from here. */
const NOW = Date.UTC(2027, 0, 15, 8, 0, 0);
const SESSION = { session_id: '0b6f7c8e-1d2a-4f5b-9c3d-2e1f0a9b8c7d', case_id: 'case_1', signed_url: 'https://app.example/s?token=t', expires_at: '2027-01-16T08:00:00.000Z' };
const CASE_RECORD = { case_id: 'case_1', runtime_status: 'processing' };
const RATE_HEADERS = { 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 42) };
const rateLimited = (headers: Record<string, string>) => ({ status: 429, headers, body: envelope('rate_limit_error', 'rate_limit_exceeded') });
const serverError = { status: 500, body: envelope('internal_error', 'internal_error', 'An unexpected error occurred.') };

let server: ScriptedServer;
let clock: RecordingClock;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
beforeEach(() => {
  clock = new RecordingClock(NOW);
});

/** random 0.5: each backoff is exactly three quarters of its step (500 ms, 1 s, 2 s, … capped at 8 s). */
const client = (options: Partial<DossierOptions> = {}) => new Dossier({ apiKey: 'sk_test_scripted', baseUrl: server.url, clock, random: () => 0.5, maxRetries: 3, ...options });
const idempotencyKeys = () => server.requests.map((r) => r.headers['idempotency-key']);

describe('429', () => {
  it('waits Retry-After, then retries with the same idempotency key', async () => {
    server.script(rateLimited({ ...RATE_HEADERS, 'retry-after': '7' }), { status: 201, body: SESSION });
    const session = await client().sessions.create({ case_type_id: 'income_verification' });
    expect(session).toEqual(SESSION);
    expect(server.requests).toHaveLength(2);
    expect(clock.waits).toEqual([7_000]);
    const keys = idempotencyKeys();
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(session.lastResponse).toMatchObject({ status: 201, retries: 1, idempotencyKey: keys[0], idempotentReplay: false });
  });

  it('waits until X-RateLimit-Reset when there is no Retry-After', async () => {
    server.script(rateLimited({ ...RATE_HEADERS, 'x-ratelimit-reset': String(NOW / 1000 + 12) }), { status: 200, body: CASE_RECORD });
    await client().cases.retrieve('case_1');
    expect(clock.waits).toEqual([12_000]);
    expect(server.requests).toHaveLength(2);
  });

  it('reads Retry-After as an HTTP date too', async () => {
    server.script(rateLimited({ 'retry-after': new Date(NOW + 3_000).toUTCString() }), { status: 200, body: CASE_RECORD });
    await client().cases.retrieve('case_1');
    expect(clock.waits).toEqual([3_000]);
  });

  it('retries requests that are not idempotent too: a 429 is refused before anything happens', async () => {
    server.script(rateLimited({ 'retry-after': '1' }), { status: 200, body: CASE_RECORD });
    await client().cases.decide('case_1', { decision: 'approve' });
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'POST']);
    expect(idempotencyKeys()).toEqual([undefined, undefined]);
  });

  it('gives up after maxRetries with a RateLimitError carrying the wait and the headers', async () => {
    server.script(rateLimited({ ...RATE_HEADERS, 'retry-after': '2' }));
    const error = await client({ maxRetries: 2 }).cases.retrieve('case_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', retries: 2, retryAfterMs: 2_000, rateLimit: { limit: 600, remaining: 0, reset: NOW / 1000 + 42 } });
    expect(server.requests).toHaveLength(3);
    expect(clock.waits).toEqual([2_000, 2_000]);
  });

  it('does not sit out a wait longer than maxRetryWaitMs', async () => {
    server.script(rateLimited({ 'retry-after': '3600' }));
    const error = await client({ maxRetryWaitMs: 60_000 }).cases.retrieve('case_1').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'rate_limit_exceeded', retryAfterMs: 3_600_000, retries: 0 });
    expect(server.requests).toHaveLength(1);
    expect(clock.waits).toEqual([]);
  });

  it('does not retry the monthly test-session cap, which no per-minute reset lifts', async () => {
    server.script({ status: 429, headers: RATE_HEADERS, body: envelope('rate_limit_error', 'test_usage_cap_exceeded') });
    const error = await client().sessions.create({ case_type_id: 'income_verification' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ code: 'test_usage_cap_exceeded' });
    expect(server.requests).toHaveLength(1);
  });
});

describe('500 and network failures', () => {
  it('retries an idempotent POST after 500s with the same idempotency key and exponential, jittered waits', async () => {
    server.script(serverError, serverError, { status: 201, body: SESSION });
    const session = await client().sessions.create({ case_type_id: 'income_verification' }, { idempotencyKey: 'loan-1' });
    expect(server.requests).toHaveLength(3);
    expect(idempotencyKeys()).toEqual(['loan-1', 'loan-1', 'loan-1']);
    expect(server.requests.every((r) => JSON.parse(r.body).case_type_id === 'income_verification')).toBe(true);
    // Steps 500 ms and 1 s, each three quarters with random 0.5.
    expect(clock.waits).toEqual([375, 750]);
    expect(session.lastResponse.retries).toBe(2);
  });

  it('uses the body idempotency_key when one is given, since the service prefers it', async () => {
    server.script(serverError, { status: 202, body: { case_id: 'case_1', document_id: 'doc_1', status: 'processing' } });
    const accepted = await client().process.create({ document_url: 'https://files.example/a.pdf', case_type_id: 'address_proof', idempotency_key: 'from-body' });
    expect(idempotencyKeys()).toEqual(['from-body', 'from-body']);
    expect(accepted.lastResponse.idempotencyKey).toBe('from-body');
  });

  it('retries a GET after dropped connections', async () => {
    server.script('drop', 'drop', { status: 200, body: CASE_RECORD });
    const record = await client().cases.retrieve('case_1');
    expect(record).toEqual(CASE_RECORD);
    expect(server.requests).toHaveLength(3);
    expect(clock.waits).toEqual([375, 750]);
  });

  it('retries a POST with an idempotency key after a dropped connection, with the same key', async () => {
    server.script('drop', { status: 201, body: SESSION });
    await client().sessions.create({ case_type_id: 'income_verification' });
    const keys = idempotencyKeys();
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('never repeats a POST without an idempotency key after a dropped connection', async () => {
    server.script('drop', { status: 200, body: CASE_RECORD });
    const error = await client().cases.decide('case_1', { decision: 'approve' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DossierConnectionError);
    expect(error).not.toBeInstanceOf(DossierError);
    expect(error).toMatchObject({ retries: 0, message: expect.stringContaining('POST /api/v1/cases/case_1/decision') });
    expect(server.requests).toHaveLength(1);
  });

  it('never repeats a POST without an idempotency key after a 500', async () => {
    server.script(serverError, { status: 200, body: { success: true, status_code: 200, delivery_id: 'dlv_1', duration_ms: 1 } });
    const error = await client().webhooks.test({ endpoint_url: 'https://hooks.example/x', signing_secret: 'whsec_x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalError);
    expect(error).toMatchObject({ status: 500, code: 'internal_error', requestId: 'req_scripted', retries: 0 });
    expect(server.requests).toHaveLength(1);
  });

  it('retries repeatable operations (acknowledgement, erasure, session expiry) like GETs', async () => {
    server.script('drop', serverError, { status: 200, body: { acknowledged: true, already_acknowledged: true, delivery_id: 'dlv_1', case_id: 'case_1', handoff_state: 'acknowledged' } });
    await client().webhooks.deliveries.ack('dlv_1', { acknowledgement_id: 'crm-1' });
    expect(server.requests).toHaveLength(3);
    expect(server.requests.map((r) => JSON.parse(r.body))).toEqual([{ acknowledgement_id: 'crm-1' }, { acknowledgement_id: 'crm-1' }, { acknowledgement_id: 'crm-1' }]);
    server.script(serverError, { status: 200, body: { case_id: 'case_1', erased_document_ids: [], erased_at: '2027-01-15T08:00:00.000Z' } });
    await client().cases.erase('case_1');
    expect(server.requests).toHaveLength(2);
    server.script('drop', { status: 200, body: { session_id: '0b6f7c8e-1d2a-4f5b-9c3d-2e1f0a9b8c7d', status: 'expired', signed_url: null } });
    await client().sessions.expire('0b6f7c8e-1d2a-4f5b-9c3d-2e1f0a9b8c7d');
    expect(server.requests).toHaveLength(2);
  });

  it('treats a proxy’s 502 page as a retryable internal error', async () => {
    server.script({ status: 502, body: '<html>Bad gateway</html>' }, { status: 200, body: CASE_RECORD });
    await client().cases.retrieve('case_1');
    expect(server.requests).toHaveLength(2);
    server.script({ status: 502, body: '<html>Bad gateway</html>' });
    const error = await client({ maxRetries: 0 }).cases.retrieve('case_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalError);
    expect(error).toMatchObject({ status: 502, code: 'internal_error', requestId: 'req_scripted_1', message: expect.stringContaining('HTTP 502') });
  });

  it('stops after maxRetries, with the retries counted on the error', async () => {
    server.script(serverError);
    const error = await client({ maxRetries: 3 }).cases.retrieve('case_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalError);
    expect(error).toMatchObject({ retries: 3 });
    expect(server.requests).toHaveLength(4);
    expect(clock.waits).toEqual([375, 750, 1_500]);
  });

  it('caps the backoff and keeps its jitter inside each step', async () => {
    server.script(serverError);
    const randoms = [0, 0.999, 0.25, 0.75, 0, 0.999, 0.5, 0.1];
    let i = 0;
    await client({ maxRetries: 8, random: () => randoms[i++ % randoms.length]! }).cases.retrieve('case_1').catch(() => {});
    expect(server.requests).toHaveLength(9);
    const steps = [500, 1_000, 2_000, 4_000, 8_000, 8_000, 8_000, 8_000];
    clock.waits.forEach((wait, n) => {
      expect(wait).toBeGreaterThanOrEqual(steps[n]! / 2);
      expect(wait).toBeLessThanOrEqual(steps[n]!);
    });
    expect(clock.waits[0]).toBe(250);
    expect(clock.waits[5]).toBe(7_996);
  });

  it('times out an attempt that gets no answer, retries it, and says so when none answers', async () => {
    server.script('hang', { status: 200, body: CASE_RECORD });
    const record = await client({ timeoutMs: 150 }).cases.retrieve('case_1');
    expect(record.lastResponse.retries).toBe(1);
    server.script('hang');
    const error = await client({ timeoutMs: 150, maxRetries: 1 }).cases.retrieve('case_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DossierTimeoutError);
    expect(error).toMatchObject({ retries: 1, message: expect.stringContaining('no answer within 150 ms after 2 attempts') });
  });

  it('never retries once the caller aborts', async () => {
    server.script('hang');
    const controller = new AbortController();
    const pending = client().cases.retrieve('case_1', { signal: controller.signal });
    await until(() => server.requests.length === 1);
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
    expect(server.requests).toHaveLength(1);
  });
});

describe('never retried', () => {
  const cases = [
    { status: 400, type: 'validation_error', code: 'invalid_limit', Class: ValidationError },
    { status: 401, type: 'authentication_error', code: 'invalid_api_key', Class: AuthenticationError },
    { status: 402, type: 'billing_error', code: 'billing_required', Class: BillingError },
    { status: 403, type: 'authorization_error', code: 'forbidden', Class: AuthorizationError },
    { status: 404, type: 'not_found', code: 'not_found', Class: NotFoundError },
    { status: 428, type: 'precondition_error', code: 'legal_acceptance_required', Class: PreconditionError },
  ];
  it.each(cases)('$status $code: one request, a $Class.name', async ({ status, type, code, Class }) => {
    server.script({ status, headers: RATE_HEADERS, body: envelope(type, code, 'told you', 'req_4711') });
    const error = await client().sessions.create({ case_type_id: 'income_verification' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Class);
    expect(error).toBeInstanceOf(DossierError);
    expect(error).toMatchObject({ status, type, code, message: 'told you', requestId: 'req_4711', retries: 0, name: Class.name });
    expect((error as DossierError).rateLimit).toEqual({ limit: 600, remaining: 0, reset: NOW / 1000 + 42 });
    expect(server.requests).toHaveLength(1);
    expect(clock.waits).toEqual([]);
  });
});

describe('responses', () => {
  it('exposes idempotent_replay and the rate-limit headers without putting them in the body', async () => {
    server.script({ status: 200, headers: { ...RATE_HEADERS, 'x-ratelimit-remaining': '598', 'idempotent-replayed': 'true' }, body: { ...SESSION, idempotent_replay: true } });
    const session = await client().sessions.create({ case_type_id: 'income_verification' }, { idempotencyKey: 'k1' });
    expect(session.idempotent_replay).toBe(true);
    expect(session.lastResponse).toMatchObject({ status: 200, idempotentReplay: true, idempotencyKey: 'k1', requestId: 'req_scripted_1', rateLimit: { limit: 600, remaining: 598, reset: NOW / 1000 + 42 } });
    expect(JSON.parse(JSON.stringify(session))).toEqual({ ...SESSION, idempotent_replay: true });
    expect(server.requests[0]!.headers).toMatchObject({ authorization: 'Bearer sk_test_scripted', 'idempotency-key': 'k1', 'content-type': 'application/json' });
  });

  it('sends query parameters and encodes path segments', async () => {
    server.script({ status: 200, body: { case_id: 'a/b', events: [], next_cursor: 7, has_more: false } });
    for await (const _ of client().cases.events('a/b', { afterCursor: 7, limit: 50 })) throw new Error('no events expected');
    expect(server.requests[0]!.url).toBe('/api/v1/cases/a%2Fb/events?after_cursor=7&limit=50');
  });

  it('keeps a path prefix of the base address', async () => {
    server.script({ status: 200, body: CASE_RECORD });
    await client({ baseUrl: `${server.url}/dossier/` }).cases.retrieve('case_1');
    expect(server.requests[0]!.url).toBe('/dossier/api/v1/cases/case_1');
  });
});
