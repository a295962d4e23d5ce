import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { dashboardAgent, type DashboardAgent } from '../support/dashboard-agent.ts';
import { newOperator } from '../support/web.ts';

const KEY_PATTERN = /<code id="new-key">(sk_(?:test|live)_[A-Za-z0-9]+)<\/code>/;

describeEachBackend('developer settings: API keys', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let admin: DashboardAgent;
  beforeAll(async () => {
    t = await createTestApp(backend);
    ws = await t.workspace({ name: 'Acme Lending' });
    const op = await newOperator(t, ws.orgId, 'admin');
    admin = await dashboardAgent(t, op.email, op.password);
  });
  afterAll(() => t.close());

  it('creates a key shown once, which then calls the API; revoking it gives 401', async () => {
    const created = await admin.post('/dashboard/developers/keys', { name: 'Backend', environment: 'test', scopes: ['cases:read', 'sessions:write'], expires_in_days: '30', rate_limit: '120' });
    expect(created.statusCode).toBe(303);
    const page = await admin.follow(created);
    const key = KEY_PATTERN.exec(page.body)?.[1];
    expect(key).toMatch(/^sk_test_/);
    expect(page.body).toContain('will not be shown again');
    // Shown once: the next visit has no key on it.
    expect((await admin.get('/dashboard/developers/keys')).body).not.toContain(key!);

    const listed = await admin.get('/dashboard/developers/keys');
    expect(listed.body).toContain('Backend');
    expect(listed.body).toContain('120/min');
    expect(listed.body).toContain('<code>cases:read</code>');

    const call = () => t.app.inject({ method: 'GET', url: '/api/v1/cases', headers: { authorization: `Bearer ${key}` } });
    expect((await call()).statusCode).toBe(200);
    // The scope is what was ticked: webhooks:read was not.
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/notifications', headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(403);

    const row = await t.ctx.db.selectFrom('api_keys').selectAll().where('name', '=', 'Backend').executeTakeFirstOrThrow();
    expect(row.scopes).toEqual(['cases:read', 'sessions:write']);
    expect(row.rate_limit_per_minute).toBe(120);
    expect(row.expires_at).not.toBeNull();

    const confirm = await admin.get(`/dashboard/developers/keys/${row.key_id}/revoke`);
    expect(confirm.body).toContain('Revoke “Backend”?');
    const revoked = await admin.post(`/dashboard/developers/keys/${row.key_id}/revoke`, {}, confirm.body);
    expect(revoked.statusCode).toBe(303);
    const res = await call();
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('invalid_api_key');
    expect((await admin.follow(revoked)).body).toContain('Revoked');
  });

  it('re-shows the form with every problem and what was entered', async () => {
    const keysBefore = await t.ctx.db.selectFrom('api_keys').select('key_id').where('org_id', '=', ws.orgId).execute();
    const res = await admin.post('/dashboard/developers/keys', { name: '', environment: 'test', expires_in_days: 'soon', rate_limit: '-4' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('<title>Error: API keys');
    for (const text of ['Enter a name for the key', 'Choose at least one scope', 'Expiry must be a whole number of days', 'The rate limit must be a whole number']) {
      expect(res.body).toContain(text);
    }
    expect(res.body).toContain('value="soon"');
    expect(await t.ctx.db.selectFrom('api_keys').select('key_id').where('org_id', '=', ws.orgId).execute()).toHaveLength(keysBefore.length);
  });

  it("cannot revoke another workspace's key", async () => {
    const other = await t.workspace({ name: 'Other' });
    const page = await admin.get('/dashboard/developers/keys');
    const res = await admin.post(`/dashboard/developers/keys/${other.keyId}/revoke`, {}, page.body);
    expect(res.statusCode).toBe(303);
    const row = await t.ctx.db.selectFrom('api_keys').select('revoked_at').where('key_id', '=', other.keyId).executeTakeFirstOrThrow();
    expect(row.revoked_at).toBeNull();
  });
});
