import { AuthorizationError, BillingError, type DossierError, NotFoundError, PreconditionError, RateLimitError, ValidationError, type Dossier, type SessionCreateParams } from '@dossier/client';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSessionBody } from '../../src/http/routes/sessions.create.ts';
import { refreshQueueProjection } from '../../src/domain/cases/queue-projection.ts';
import { inTransaction } from '../../src/storage/unit-of-work.ts';
import { forgetCommittedAnswers, knownReplay } from '../../src/domain/idempotency/idempotency.ts';
import { updateOrg } from '../../src/domain/orgs/orgs.ts';
import { ManualClock } from '../../src/ports/clock.ts';
import { hashSessionToken } from '../../src/domain/sessions/session-token.ts';
import { forgetGates } from '../../src/domain/sessions/gate-memory.ts';
import { createTestApp, describeEachBackend, itOnPostgres, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { uniqueKey, withExampleCaseTypes } from '../support/fixtures.ts';
import { dossierError, dossierFor, statusOf } from '../support/dossier-client.ts';

describeEachBackend('POST /api/v1/sessions', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let dossier: Dossier;
  const clock = new ManualClock('2026-06-15T12:00:00.000Z');

  beforeAll(async () => {
    t = await createTestApp(backend, { clock, env: { TEST_SESSIONS_PER_MONTH: '1000' } });
    ws = await t.workspace();
    dossier = dossierFor(t, ws);
    await withExampleCaseTypes(t, ws.orgId);
  });
  afterAll(() => t.close());

  /** Creates with the client under a fresh key unless one is given. */
  const create = (body: SessionCreateParams, idempotencyKey = uniqueKey(), client = dossier) => client.sessions.create(body, { idempotencyKey });

  /** Raw HTTP for what the typed client never sends: malformed bodies, a missing or blank key, a header unlike the body's key. */
  const post = (payload: unknown, headers: Record<string, string> = {}, key = ws.key) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      payload: JSON.stringify(payload),
    });

  function expectError(res: Awaited<ReturnType<typeof post>>, status: number, code: string, type?: string) {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().error.code).toBe(code);
    if (type) expect(res.json().error.type).toBe(type);
    expect(res.json().error.request_id).toBe(res.headers['x-request-id']);
  }

  function expectClientError(error: DossierError, status: number, code: string, type?: string) {
    expect(error.status, error.message).toBe(status);
    expect(error.code).toBe(code);
    if (type) expect(error.type).toBe(type);
    expect(error.requestId).toBe(error.headers.get('x-request-id'));
  }

  describe('creation', () => {
    it('creates a session and its case: 201 with a signed link under APP_URL', async () => {
      const body = await create({ case_type_id: 'income_verification', external_case_id: 'loan-1', metadata: { branch: 'north' } });
      expect(body.lastResponse.status).toBe(201);
      expect(body.session_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(body.case_id).toMatch(/^case_/);
      expect(body.status).toBe('open');
      expect(body.idempotent_replay).toBeUndefined();
      expect(body.lastResponse.headers.get('idempotent-replayed')).toBeNull();
      expect(body.lastResponse.idempotentReplay).toBe(false);
      expect(body.expires_at).toBe('2026-06-16T12:00:00.000Z');
      const url = new URL(body.signed_url);
      expect(`${url.origin}${url.pathname}`).toBe(`http://localhost:3000/app/s/${body.session_id}`);
      const token = url.searchParams.get('token')!;
      expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
      const stored = await t.ctx.db.selectFrom('sessions').selectAll().where('session_id', '=', body.session_id).executeTakeFirstOrThrow();
      expect(stored.token_hash).toBe(hashSessionToken(token));
      expect(JSON.stringify(stored)).not.toContain(token);
      const events = await t.ctx.db.selectFrom('case_events').select(['event_type', 'cursor']).where('case_id', '=', body.case_id).orderBy('cursor').execute();
      expect(events).toEqual([
        { event_type: 'case.created', cursor: 1 },
        { event_type: 'session.created', cursor: 2 },
      ]);
    });

    it('sends five statements for a new key, then one; one for a replay of a key read from the database, none for one this process knows (issues 16, 29)', async () => {
      // Under a workspace and case type this process has not created under: the committed-record
      // read, BEGIN, the claim with the gate read, the one write, COMMIT.
      const statements = () => t.runtime.database.poolStats().statements;
      forgetGates({ orgId: ws.orgId, environment: 'test' }, 'income_verification');
      const key = uniqueKey();
      const payload = { case_type_id: 'income_verification', external_case_id: `pin-${key}`, metadata: { branch: 'north' } };
      const before = statements();
      const first = await post(payload, { 'idempotency-key': key });
      expect(first.statusCode, first.body).toBe(201);
      expect(statements() - before).toBe(5);
      // Then the gates it decided on are remembered, and a new key is one call (migration 0029).
      const next = uniqueKey();
      const atOnce = statements();
      const second = await post({ ...payload, external_case_id: `pin-${next}` }, { 'idempotency-key': next });
      expect(second.statusCode, second.body).toBe(201);
      expect(statements() - atOnce).toBe(1);
      const secondEvents = await t.ctx.db.selectFrom('case_events').select(['event_type', 'cursor']).where('case_id', '=', second.json().case_id).orderBy('cursor').execute();
      expect(secondEvents).toEqual([
        { event_type: 'case.created', cursor: 1 },
        { event_type: 'session.created', cursor: 2 },
      ]);
      // This process committed the answer: its replay needs no statement.
      const known = statements();
      const again = await post(payload, { 'idempotency-key': key });
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual({ ...first.json(), idempotent_replay: true });
      expect(statements() - known).toBe(0);
      // A key this process has not seen (another process created it, or it restarted): one read.
      const other = uniqueKey();
      const stored = await post({ ...payload, external_case_id: `pin-${other}` }, { 'idempotency-key': other });
      forgetCommittedAnswers();
      const read = statements();
      const replayed = await post({ ...payload, external_case_id: `pin-${other}` }, { 'idempotency-key': other });
      expect(replayed.json().session_id).toBe(stored.json().session_id);
      expect(statements() - read).toBe(1);
    });

    it('writes the queue projection a refresh would write, and leaves the case at revision 1', async () => {
      const body = await create({ case_type_id: 'income_verification', prefill: { full_name: 'Ann' } });
      const stored = await t.ctx.db.selectFrom('cases').select(['queue_category', 'queue_status', 'queue_row', 'last_event_cursor']).where('case_id', '=', body.case_id).executeTakeFirstOrThrow();
      const revision = await sql<{ revision: number }>`select revision::int from cases where case_id = ${body.case_id}`.execute(t.ctx.db);
      expect(revision.rows[0]!.revision).toBe(1);
      expect(stored.last_event_cursor).toBe(2);
      await inTransaction(t.ctx.db, (tx) => refreshQueueProjection(tx, { tenant: { orgId: ws.orgId, environment: 'test' }, caseId: body.case_id }));
      const refreshed = await t.ctx.db.selectFrom('cases').select(['queue_category', 'queue_status', 'queue_row', 'last_event_cursor']).where('case_id', '=', body.case_id).executeTakeFirstOrThrow();
      expect(refreshed).toEqual(stored);
      // Every fact is pending, which needs no row (issue 29); the record shows them all.
      const facts = await t.ctx.db.selectFrom('facts').select(['fact_id', 'status']).where('case_id', '=', body.case_id).execute();
      expect(facts).toEqual([]);
      const record = (await t.app.inject({ method: 'GET', url: `/api/v1/cases/${body.case_id}`, headers: { authorization: `Bearer ${ws.key}` } })).json();
      expect(record.workspace.facts.length).toBeGreaterThan(1);
      expect(new Set(record.workspace.facts.map((f: { status: string }) => f.status))).toEqual(new Set(['pending']));
    });

    it('honours expires_in_seconds and the Idempotency-Key in the body', async () => {
      const res = await post({ case_type_id: 'address_proof', expires_in_seconds: 1800, idempotency_key: uniqueKey() });
      expect(res.statusCode).toBe(201);
      expect(res.json().expires_at).toBe('2026-06-15T12:30:00.000Z');
    });
  });

  describe('idempotency', () => {
    it('replays the original with 200, idempotent_replay and Idempotent-Replayed', async () => {
      const key = uniqueKey();
      const first = await create({ case_type_id: 'income_verification', prefill: { full_name: 'Ann' } }, key);
      clock.advance(60_000);
      const again = await create({ prefill: { full_name: 'Ann' }, case_type_id: 'income_verification' }, key);
      clock.advance(-60_000);
      expect(again.lastResponse.status).toBe(200);
      expect(again.lastResponse.headers.get('idempotent-replayed')).toBe('true');
      expect(again.lastResponse.idempotentReplay).toBe(true);
      expect(again).toEqual({ ...first, idempotent_replay: true });
      const cases = await t.ctx.db.selectFrom('cases').select('case_id').where('org_id', '=', ws.orgId).where('case_id', '=', first.case_id).execute();
      expect(cases).toHaveLength(1);
    });

    it('answers a replay this process knows before validation, byte for byte as the full path does (issue 16)', async () => {
      const key = uniqueKey();
      const payload = { case_type_id: 'income_verification', prefill: { full_name: 'Ann' }, metadata: { branch: 'north' } };
      expect((await post(payload, { 'idempotency-key': key })).statusCode).toBe(201);
      // Forgotten, the key's replay goes through validation and the handler (and is remembered again).
      forgetCommittedAnswers();
      const validations = vi.spyOn(createSessionBody, 'safeParse');
      const full = await post(payload, { 'idempotency-key': key });
      expect(validations).toHaveBeenCalledTimes(1);
      const statements = t.runtime.database.poolStats().statements;
      const known = await post({ metadata: { branch: 'north' }, prefill: { full_name: 'Ann' }, case_type_id: 'income_verification' }, { 'idempotency-key': key });
      expect(t.runtime.database.poolStats().statements - statements).toBe(0);
      expect(validations).toHaveBeenCalledTimes(1);
      validations.mockRestore();
      expect(known.statusCode).toBe(200);
      expect(known.body).toBe(full.body);
      const headersOf = (res: typeof full) => {
        const { date: _date, 'x-request-id': requestId, 'x-ratelimit-remaining': remaining, ...rest } = res.headers;
        expect(requestId).toMatch(/^req_/);
        expect(Number(remaining)).toBeGreaterThanOrEqual(0);
        return rest;
      };
      expect(headersOf(known)).toEqual(headersOf(full));
      expect(known.headers['idempotent-replayed']).toBe('true');
      expect(known.headers['x-request-id']).not.toBe(full.headers['x-request-id']);
      expect(Number(known.headers['x-ratelimit-remaining'])).toBe(Number(full.headers['x-ratelimit-remaining']) - 1);
      // The same key with another body is still a conflict, and an invalid body is still refused by validation.
      expectError(await post({ ...payload, prefill: { full_name: 'Bob' } }, { 'idempotency-key': key }), 400, 'idempotency_key_conflict');
      expectError(await post({ ...payload, locale: 'not a tag' }, { 'idempotency-key': key }), 400, 'invalid_request');
      expectError(await post({ ...payload, idempotency_key: 7 }, { 'idempotency-key': key }), 400, 'invalid_request');
      // Authentication still comes first.
      expectError(await post(payload, { 'idempotency-key': key }, 'dsr_test_not_a_key'), 401, 'invalid_api_key');
    });

    it('recognises a known replay by its raw text, and still by its canonical JSON when the text differs (issue 29)', async () => {
      const key = uniqueKey();
      const text = '{"case_type_id":"income_verification","prefill":{"full_name":"Ann"}}';
      const send = (payload: string, headers: Record<string, string> = {}) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/sessions',
          headers: { authorization: `Bearer ${ws.key}`, 'content-type': 'application/json', 'idempotency-key': key, ...headers },
          payload,
        });
      const first = await send(text);
      expect(first.statusCode).toBe(201);
      // The first replay matches by canonical JSON and keeps its text beside the answer.
      expect((await send(text)).statusCode).toBe(200);
      const same = await send(text);
      expect(same.statusCode).toBe(200);
      expect(same.json().session_id).toBe(first.json().session_id);
      // The kept text is matched as text: here the parsed body is deliberately another, and the fingerprint is not consulted.
      const scope = { orgId: ws.orgId, environment: 'test' as const, operation: 'sessions.create', key };
      expect(knownReplay({ ...scope, body: { case_type_id: 'other' } }, clock.now(), text)).toMatchObject({ status: 201 });
      expect(knownReplay({ ...scope, body: { case_type_id: 'other' } }, clock.now(), `${text} `)).toBeUndefined();
      // The contract's "same request" is semantic: another spacing and key order still replays.
      const reordered = await send('{ "prefill": { "full_name": "Ann" },\n  "case_type_id": "income_verification" }');
      expect(reordered.statusCode).toBe(200);
      expect(reordered.json().session_id).toBe(first.json().session_id);
      // Other text with another meaning is still a conflict, whatever text was kept.
      expectError(await send('{"case_type_id":"income_verification","prefill":{"full_name":"Bob"}}'), 400, 'idempotency_key_conflict');
      expect((await send(text)).statusCode).toBe(200);
    });

    it('lets the body key win over the header', async () => {
      const bodyKey = uniqueKey();
      const first = await post({ case_type_id: 'income_verification', idempotency_key: bodyKey }, { 'idempotency-key': uniqueKey() });
      const again = await post({ case_type_id: 'income_verification', idempotency_key: bodyKey }, { 'idempotency-key': uniqueKey() });
      expect(again.statusCode).toBe(200);
      expect(again.json().session_id).toBe(first.json().session_id);
    });

    it('refuses a reused key with other parameters: idempotency_key_conflict', async () => {
      const key = uniqueKey();
      expect((await create({ case_type_id: 'income_verification' }, key)).lastResponse.status).toBe(201);
      const error = await dossierError(create({ case_type_id: 'address_proof' }, key));
      expectClientError(error, 400, 'idempotency_key_conflict', 'validation_error');
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toMatch(/different parameters/);
    });

    it('requires a key: missing_idempotency_key', async () => {
      expectError(await post({ case_type_id: 'income_verification' }), 400, 'missing_idempotency_key');
      expectError(await post({ case_type_id: 'income_verification', idempotency_key: '' }), 400, 'missing_idempotency_key');
      expectError(await post({ case_type_id: 'income_verification' }, { 'idempotency-key': ' ' }), 400, 'missing_idempotency_key');
      expectError(await post({ case_type_id: 'income_verification' }, { 'idempotency-key': 'k'.repeat(256) }), 400, 'invalid_request');
    });

    it('starts afresh after the 24-hour retention', async () => {
      const key = uniqueKey();
      const first = await create({ case_type_id: 'income_verification' }, key);
      clock.advance(24 * 3600 * 1000 + 1000);
      const later = await create({ case_type_id: 'income_verification' }, key);
      clock.set('2026-06-15T12:00:00.000Z');
      expect(later.lastResponse.status).toBe(201);
      expect(later.session_id).not.toBe(first.session_id);
    });

    it('stores nothing for a refused request, so the key can be retried', async () => {
      const key = uniqueKey();
      expectClientError(await dossierError(create({ case_type_id: 'no_such_type' }, key)), 404, 'not_found');
      const retry = await dossierError(create({ case_type_id: 'no_such_type_either' }, key));
      expectClientError(retry, 404, 'not_found');
      expect(retry).toBeInstanceOf(NotFoundError);
      const ok = await create({ case_type_id: 'income_verification' }, key);
      expect(ok.lastResponse.status).toBe(201);
    });
  });

  describe('validation', () => {
    const key = () => ({ 'idempotency-key': uniqueKey() });

    it('missing_case_type_id', async () => {
      expectError(await post({}, key()), 400, 'missing_case_type_id');
      expectError(await post({ case_type_id: '' }, key()), 400, 'missing_case_type_id');
      expectError(await post({ case_type_id: null }, key()), 400, 'missing_case_type_id');
    });

    it('unknown case type: 404 not_found', async () => {
      expectClientError(await dossierError(create({ case_type_id: 'nope' })), 404, 'not_found');
    });

    it('invalid_integration_identity for each identity field', async () => {
      for (const field of ['external_case_id', 'external_applicant_id', 'external_customer_id']) {
        for (const bad of ['', 42, null, 'x'.repeat(256), { id: 1 }]) {
          expectError(await post({ case_type_id: 'income_verification', [field]: bad }, key()), 400, 'invalid_integration_identity');
        }
      }
    });

    it('per_request_webhook_url_not_supported for webhook_url, callback_url, notification_url', async () => {
      for (const field of ['webhook_url', 'callback_url', 'notification_url']) {
        const error = await dossierError(create({ case_type_id: 'income_verification', [field]: 'https://example.com/hook' }));
        expectClientError(error, 400, 'per_request_webhook_url_not_supported');
      }
    });

    it('invalid_request for other bad fields, unknown fields and bodies', async () => {
      for (const body of [
        { case_type_id: 'income_verification', expires_in_seconds: 60 },
        { case_type_id: 'income_verification', expires_in_seconds: 604_801 },
        { case_type_id: 'income_verification', metadata: { a: 1 } },
        { case_type_id: 'income_verification', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) },
        { case_type_id: 'income_verification', locale: 'not a locale' },
        { case_type_id: 'income_verification', prefill: 'x' },
        { case_type_id: 'income_verification', surprise: true },
      ]) {
        const res = await post(body, key());
        expectError(res, 400, 'invalid_request');
      }
    });

    it('return_url: http on the developer’s own machine with a test key only, and the error names its param', async () => {
      for (const returnUrl of ['http://localhost:4567/done', 'http://127.0.0.1:4567/done', 'http://[::1]:4567/done', 'https://example.com/done']) {
        expect((await post({ case_type_id: 'income_verification', return_url: returnUrl }, key())).statusCode, returnUrl).toBe(201);
      }
      for (const returnUrl of ['http://example.com/done', 'http://10.0.0.1/done', 'ftp://localhost/done']) {
        const res = await post({ case_type_id: 'income_verification', return_url: returnUrl }, key());
        expectError(res, 400, 'invalid_request');
        expect(res.json().error.param, returnUrl).toBe('return_url');
      }
      const live = await t.createKey(ws.orgId, { environment: 'live' });
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/sessions',
        headers: { authorization: `Bearer ${live.key}`, 'idempotency-key': uniqueKey() },
        payload: { case_type_id: 'income_verification', return_url: 'http://localhost:4567/done' },
      });
      expectError(res, 400, 'invalid_request');
      expect(res.json().error).toMatchObject({ param: 'return_url', message: expect.stringContaining('https URL with a live key') });
    });

    it('names the field at fault in error.param, and none for a whole-body problem', async () => {
      expect((await post({ case_type_id: 'income_verification', metadata: { a: 1 } }, key())).json().error.param).toBe('metadata.a');
      expect((await post({ external_case_id: 'x' }, key())).json().error).toMatchObject({ code: 'missing_case_type_id', param: 'case_type_id' });
      await create({ case_type_id: 'income_verification', external_case_id: 'param-dup' });
      const conflict = await dossierError(create({ case_type_id: 'income_verification', external_case_id: 'param-dup' }));
      expect(conflict.param).toBe('external_case_id');
      const whole = await t.app.inject({ method: 'POST', url: '/api/v1/sessions', headers: { authorization: `Bearer ${ws.key}`, 'content-type': 'application/json', ...key() }, payload: '{' });
      expect(whole.json().error.param).toBeUndefined();
    });

    it('external_case_id_conflict within a workspace and environment, not across them', async () => {
      const first = await create({ case_type_id: 'income_verification', external_case_id: 'dup-1' });
      expect(first.lastResponse.status).toBe(201);
      expectClientError(await dossierError(create({ case_type_id: 'income_verification', external_case_id: 'dup-1' })), 400, 'external_case_id_conflict');
      const other = await t.workspace();
      await withExampleCaseTypes(t, other.orgId);
      expect((await create({ case_type_id: 'income_verification', external_case_id: 'dup-1' }, uniqueKey(), dossierFor(t, other))).lastResponse.status).toBe(201);
    });

    it('needs the sessions:write scope', async () => {
      const reader = await t.createKey(ws.orgId, { scopes: ['cases:read'] });
      const error = await dossierError(create({ case_type_id: 'income_verification' }, uniqueKey(), dossierFor(t, reader.key)));
      expectClientError(error, 403, 'forbidden');
      expect(error).toBeInstanceOf(AuthorizationError);
    });
  });
});

describeEachBackend('session account gates', (backend) => {
  let t: TestApp;
  const clock = new ManualClock('2026-06-30T23:59:00.000Z');
  beforeAll(async () => {
    t = await createTestApp(backend, { clock, env: { TEST_SESSIONS_PER_MONTH: '3' } });
  });
  afterAll(() => t.close());

  const create = (key: string, body: SessionCreateParams, idem = uniqueKey()) => dossierFor(t, key).sessions.create(body, { idempotencyKey: idem });

  it('live keys need legal acceptance (428), then billing (402), then room under the live cap (402)', async () => {
    const org = await t.workspace({ acceptLegal: false, billing: 'inactive' });
    await withExampleCaseTypes(t, org.orgId);
    const live = await t.createKey(org.orgId, { environment: 'live' });
    let error = await dossierError(create(live.key, { case_type_id: 'income_verification' }));
    expect(error.status).toBe(428);
    expect(error).toBeInstanceOf(PreconditionError);
    expect(error).toMatchObject({ code: 'legal_acceptance_required', type: 'precondition_error' });

    await updateOrg(t.ctx, { orgId: org.orgId, acceptLegal: true });
    error = await dossierError(create(live.key, { case_type_id: 'income_verification' }));
    expect(error.status).toBe(402);
    expect(error).toBeInstanceOf(BillingError);
    expect(error).toMatchObject({ code: 'billing_required', type: 'billing_error' });

    await updateOrg(t.ctx, { orgId: org.orgId, billing: 'active', liveUsageCap: 1 });
    const idem = uniqueKey();
    expect(await statusOf(create(live.key, { case_type_id: 'income_verification' }, idem))).toBe(201);
    error = await dossierError(create(live.key, { case_type_id: 'income_verification' }));
    expect(error.status).toBe(402);
    expect(error).toMatchObject({ code: 'live_usage_cap_exceeded', type: 'billing_error' });

    // A replay is answered even though a new request would now be refused.
    await updateOrg(t.ctx, { orgId: org.orgId, billing: 'inactive' });
    const replay = await create(live.key, { case_type_id: 'income_verification' }, idem);
    expect(replay.lastResponse.status).toBe(200);
    expect(replay.idempotent_replay).toBe(true);
  });

  it('test keys need neither billing nor legal acceptance', async () => {
    const org = await t.workspace({ acceptLegal: false, billing: 'inactive' });
    await withExampleCaseTypes(t, org.orgId);
    expect(await statusOf(create(org.key, { case_type_id: 'income_verification' }))).toBe(201);
  });

  it('caps test sessions per UTC month; replays are free and answered at the cap; the cap resets next month', async () => {
    const org = await t.workspace();
    await withExampleCaseTypes(t, org.orgId);
    const idem = uniqueKey();
    expect(await statusOf(create(org.key, { case_type_id: 'income_verification' }, idem))).toBe(201);
    expect(await statusOf(create(org.key, { case_type_id: 'income_verification' }, idem))).toBe(200);
    expect(await statusOf(create(org.key, { case_type_id: 'income_verification' }))).toBe(201);
    expect(await statusOf(create(org.key, { case_type_id: 'income_verification' }))).toBe(201);
    const capped = await dossierError(create(org.key, { case_type_id: 'income_verification' }));
    expect(capped.status).toBe(429);
    expect(capped).toBeInstanceOf(RateLimitError);
    expect(capped).toMatchObject({ code: 'test_usage_cap_exceeded', type: 'rate_limit_error' });
    expect(await statusOf(create(org.key, { case_type_id: 'income_verification' }, idem))).toBe(200);

    clock.set('2026-07-01T00:00:00.000Z');
    expect(await statusOf(create(org.key, { case_type_id: 'income_verification' }))).toBe(201);
    clock.set('2026-06-30T23:59:00.000Z');
  });

  itOnPostgres(backend, 'counts the cap exactly under concurrency', async () => {
    const org = await t.workspace();
    await withExampleCaseTypes(t, org.orgId);
    const statuses = (await Promise.all(Array.from({ length: 12 }, () => statusOf(create(org.key, { case_type_id: 'address_proof' }))))).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
    const sessions = await t.ctx.db.selectFrom('sessions').select('session_id').where('org_id', '=', org.orgId).execute();
    expect(sessions).toHaveLength(3);
  });

  itOnPostgres(backend, 'creates exactly one session for concurrent requests with one key; the rest replay', async () => {
    const org = await t.workspace();
    await withExampleCaseTypes(t, org.orgId);
    const idem = uniqueKey();
    const results = await Promise.all(Array.from({ length: 8 }, () => create(org.key, { case_type_id: 'income_verification' }, idem)));
    const created = results.filter((r) => r.lastResponse.status === 201);
    const replays = results.filter((r) => r.lastResponse.status === 200);
    expect(created).toHaveLength(1);
    expect(replays).toHaveLength(7);
    for (const r of replays) expect(r.session_id).toBe(created[0]!.session_id);
    const sessions = await t.ctx.db.selectFrom('sessions').select('session_id').where('org_id', '=', org.orgId).execute();
    expect(sessions).toHaveLength(1);
  });
});
