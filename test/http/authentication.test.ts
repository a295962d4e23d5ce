import { afterAll, beforeAll, expect, it } from 'vitest';
import { revokeApiKey } from '../../src/domain/keys/keys.ts';
import { ManualClock } from '../../src/ports/clock.ts';
import { findApiKey } from '../../src/storage/api-keys.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { probeRoutes } from '../support/probe-routes.ts';

describeEachBackend('authentication', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  const clock = new ManualClock('2026-03-10T10:00:00.000Z');

  beforeAll(async () => {
    t = await createTestApp(backend, { clock, routes: probeRoutes });
    ws = await t.workspace();
  });
  afterAll(() => t.close());

  const read = (authorization?: string) =>
    t.app.inject({ method: 'GET', url: '/api/v1/_probe/read', headers: authorization === undefined ? {} : { authorization } });

  function expectInvalidKey(res: Awaited<ReturnType<typeof read>>, message: RegExp) {
    expect(res.statusCode).toBe(401);
    const body = res.json();
    expect(body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    expect(body.error.message).toMatch(message);
    expect(body.error.request_id).toBe(res.headers['x-request-id']);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  }

  it('accepts a valid test key and scopes the request to its workspace', async () => {
    const res = await read(`Bearer ${ws.key}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ org_id: ws.orgId, environment: 'test', key_id: ws.keyId });
  });

  it('accepts the scheme in any case and surrounding spaces', async () => {
    expect((await read(`bearer  ${ws.key} `)).statusCode).toBe(200);
  });

  it('refuses a missing key', async () => {
    expectInvalidKey(await read(), /No API key provided/);
    expectInvalidKey(await read(''), /No API key provided/);
  });

  it('refuses a header that is not Bearer', async () => {
    expectInvalidKey(await read(`Basic ${Buffer.from(`${ws.key}:`).toString('base64')}`), /Bearer/);
    expectInvalidKey(await read(ws.key), /Bearer/);
  });

  it('refuses a malformed key', async () => {
    for (const bad of ['sk_test_short', 'pk_test_' + 'a'.repeat(43), 'sk_prod_' + 'a'.repeat(43), ws.key + 'x', ws.key.slice(0, -1) + '!']) {
      expectInvalidKey(await read(`Bearer ${bad}`), /Malformed API key/);
    }
  });

  it('refuses an unknown well-formed key without echoing it', async () => {
    const unknown = `sk_test_${'A'.repeat(43)}`;
    const res = await read(`Bearer ${unknown}`);
    expectInvalidKey(res, /Invalid API key ending in AAAA/);
    expect(res.body).not.toContain(unknown);
  });

  it('refuses an expired key', async () => {
    const key = await t.createKey(ws.orgId, { expiresInSeconds: 60 });
    expect((await read(`Bearer ${key.key}`)).statusCode).toBe(200);
    clock.advance(61_000);
    expectInvalidKey(await read(`Bearer ${key.key}`), /has expired/);
  });

  it('checks expiry on every use of a key remembered by its header text (issue 29)', async () => {
    const key = await t.createKey(ws.orgId, { expiresInSeconds: 2 });
    expect((await read(`Bearer ${key.key}`)).statusCode).toBe(200);
    expect((await read(`Bearer ${key.key}`)).statusCode).toBe(200);
    clock.advance(2_500); // within the cache's 4 s
    expectInvalidKey(await read(`Bearer ${key.key}`), /has expired/);
  });

  it('refuses a key revoked through the domain right after revoke, while its header text is cached, and in every spelling (issue 29)', async () => {
    const key = await t.createKey(ws.orgId);
    for (const header of [`Bearer ${key.key}`, `bearer  ${key.key} `]) {
      expect((await read(header)).statusCode).toBe(200);
      expect((await read(header)).statusCode).toBe(200);
    }
    expect((await revokeApiKey(t.ctx, { orgId: ws.orgId, keyId: key.key_id })).ok).toBe(true);
    t.ctx.keys.forget(key.key_id);
    expectInvalidKey(await read(`Bearer ${key.key}`), /has been revoked/);
    expectInvalidKey(await read(`bearer  ${key.key} `), /has been revoked/);
  });

  it('refuses a revoked key, within 5 seconds even when it was cached by another process', async () => {
    const key = await t.createKey(ws.orgId);
    expect((await read(`Bearer ${key.key}`)).statusCode).toBe(200);
    // Revoked straight in the database, as another process would: this process's cache still holds the key.
    await t.ctx.db.updateTable('api_keys').set({ revoked_at: clock.now() }).where('key_id', '=', key.key_id).execute();
    clock.advance(5_000);
    expectInvalidKey(await read(`Bearer ${key.key}`), /has been revoked/);
  });

  it('refuses a key revoked through the domain at once', async () => {
    const key = await t.createKey(ws.orgId);
    expect((await read(`Bearer ${key.key}`)).statusCode).toBe(200);
    const revoked = await revokeApiKey(t.ctx, { orgId: ws.orgId, keyId: key.key_id });
    expect(revoked.ok).toBe(true);
    t.ctx.keys.forget(key.key_id);
    expectInvalidKey(await read(`Bearer ${key.key}`), /has been revoked/);
  });

  it('answers 403 forbidden for a key without the scope', async () => {
    const key = await t.createKey(ws.orgId, { scopes: ['sessions:write'] });
    const res = await read(`Bearer ${key.key}`);
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toMatchObject({ type: 'authorization_error', code: 'forbidden' });
    expect(res.json().error.message).toContain('cases:read');
  });

  it('checks the scope before the body', async () => {
    const key = await t.createKey(ws.orgId, { scopes: ['cases:read'] });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/_probe/echo',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(res.statusCode).toBe(403);
  });

  it('checks the key before the body', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/_probe/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(res.statusCode).toBe(401);
  });

  it('records last_used_at', async () => {
    const key = await t.createKey(ws.orgId);
    expect((await findApiKey(t.ctx.db, ws.orgId, key.key_id))?.last_used_at).toBeNull();
    await read(`Bearer ${key.key}`);
    expect((await findApiKey(t.ctx.db, ws.orgId, key.key_id))?.last_used_at?.toISOString()).toBe(clock.now().toISOString());
  });

  it('stores only a hash of the key', async () => {
    const key = await t.createKey(ws.orgId);
    const row = await findApiKey(t.ctx.db, ws.orgId, key.key_id);
    expect(JSON.stringify(row)).not.toContain(key.key.slice(8));
    expect(row?.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describeEachBackend('authentication with ACCEPTED_KEY_ENVIRONMENTS=test', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(backend, { env: { ACCEPTED_KEY_ENVIRONMENTS: 'test' }, routes: probeRoutes });
  });
  afterAll(() => t.close());

  it('refuses a live key as wrong-environment', async () => {
    const ws = await t.workspace({ billing: 'active' });
    const live = await t.createKey(ws.orgId, { environment: 'live' });
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/_probe/read', headers: { authorization: `Bearer ${live.key}` } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('invalid_api_key');
    expect(res.json().error.message).toMatch(/does not accept live keys/);
    const test = await t.app.inject({ method: 'GET', url: '/api/v1/_probe/read', headers: { authorization: `Bearer ${ws.key}` } });
    expect(test.statusCode).toBe(200);
  });
});
