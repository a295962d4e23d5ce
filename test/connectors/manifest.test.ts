import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { caller, loanManifest } from './support.ts';

describeEachBackend('connector manifests', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let call: ReturnType<typeof caller>;

  beforeAll(async () => {
    t = await createTestApp(backend);
    ws = await t.workspace();
    call = caller(t, () => ws);
  });
  afterAll(async () => {
    await t.close();
  });

  it('imports a manifest with POST (201), never returns its secret, and replaces it on a second POST (200, version 2)', async () => {
    const created = await call('POST', '/api/v1/connectors', { body: loanManifest() });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ connector_key: 'loan_origination', version: 1, auth: { type: 'bearer', secret_set: true } });
    expect(created.body).not.toContain('los-token-7f3a9c2e5b1d');
    const again = await call('POST', '/api/v1/connectors', { body: loanManifest(undefined, { name: 'LOS v2' }) });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ name: 'LOS v2', version: 2 });
  });

  it('round-trips a manifest: GET, then PUT it back unchanged keeps the secret and bumps the version', async () => {
    const read = await call('GET', '/api/v1/connectors/loan_origination');
    expect(read.statusCode).toBe(200);
    const manifest = read.json();
    expect(manifest.auth).toEqual({ type: 'bearer', secret_set: true });
    const put = await call('PUT', '/api/v1/connectors/loan_origination', { body: manifest });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ version: manifest.version + 1, auth: { type: 'bearer', secret_set: true } });
    expect(put.json().operations).toEqual(manifest.operations);
    const row = await t.ctx.db.selectFrom('connectors').selectAll().where('connector_key', '=', 'loan_origination').where('org_id', '=', ws.orgId).executeTakeFirstOrThrow();
    expect(row.secret_box).toMatch(/^v\d+\./);
    expect(row.secret_box).not.toContain('los-token');
  });

  it('PUT creates under the path key (201) and lists, reads and deletes', async () => {
    const { connector_key: _, ...body } = loanManifest('https://crm.example.com/v1', { auth: { type: 'none' } });
    const put = await call('PUT', '/api/v1/connectors/crm', { body });
    expect(put.statusCode, put.body).toBe(201);
    expect(put.json()).toMatchObject({ connector_key: 'crm', version: 1, auth: { type: 'none', secret_set: false } });
    const list = await call('GET', '/api/v1/connectors');
    expect(list.json().connectors.map((c: { connector_key: string }) => c.connector_key)).toEqual(['crm', 'loan_origination']);
    expect(list.body).not.toContain('los-token');
    expect((await call('DELETE', '/api/v1/connectors/crm')).json()).toEqual({ connector_key: 'crm', deleted: true });
    expect((await call('GET', '/api/v1/connectors/crm')).json().error.code).toBe('not_found');
    expect((await call('DELETE', '/api/v1/connectors/crm')).statusCode).toBe(404);
  });

  it('missing_connector_key: absent in a POST body, and an empty path segment', async () => {
    const { connector_key: _, ...body } = loanManifest();
    for (const res of [
      await call('POST', '/api/v1/connectors', { body }),
      await call('POST', '/api/v1/connectors', { body: { ...body, connector_key: '' } }),
      await call('PUT', '/api/v1/connectors/', { body: loanManifest() }),
      await call('GET', '/api/v1/connectors/'),
      await call('DELETE', '/api/v1/connectors/'),
    ]) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.code).toBe('missing_connector_key');
    }
  });

  it('invalid_connector_payload lists every problem with its JSON path, and stores nothing', async () => {
    const res = await call('POST', '/api/v1/connectors', {
      body: {
        connector_key: 'Bad-Key',
        name: '',
        base_url: 'ftp://los.example.com',
        auth: { type: 'header', secret: 'x' },
        operations: [
          { operation_id: 'a', method: 'trace', path: 'applications', parameters: [] },
          { operation_id: 'a', method: 'get', path: '/x/{id}', parameters: [] },
        ],
      },
    });
    expect(res.statusCode).toBe(400);
    const { code, message } = res.json().error;
    expect(code).toBe('invalid_connector_payload');
    for (const path of ['$.connector_key', '$.name', '$.base_url', '$.auth.header_name', '$.operations[0].method', '$.operations[0].path', '$.operations[1].operation_id', '$.operations[1].path']) {
      expect(message).toContain(`${path}:`);
    }
    expect((await call('GET', '/api/v1/connectors')).json().connectors.map((c: { connector_key: string }) => c.connector_key)).toEqual(['loan_origination']);
  });

  it('invalid_connector_payload: a body key that differs from the path, plain http, a body that is not a manifest', async () => {
    const cases = [
      await call('PUT', '/api/v1/connectors/other_key', { body: loanManifest() }),
      await call('POST', '/api/v1/connectors', { body: loanManifest('http://los.example.com', { connector_key: 'plain_http' }) }),
      await call('POST', '/api/v1/connectors', { body: { connector_key: 'empty' } }),
    ];
    for (const res of cases) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.code).toBe('invalid_connector_payload');
    }
    expect(cases[0]!.json().error.message).toContain('$.connector_key');
    const secretless = await call('POST', '/api/v1/connectors', { body: loanManifest(undefined, { connector_key: 'no_secret', auth: { type: 'bearer' } }) });
    expect(secretless.json().auth).toEqual({ type: 'bearer', secret_set: false });
    await call('DELETE', '/api/v1/connectors/no_secret');
  });

  it('needs connectors:write to write and connectors:read to read', async () => {
    const reader = await t.createKey(ws.orgId, { scopes: ['connectors:read'] });
    expect((await call('GET', '/api/v1/connectors', { key: reader.key })).statusCode).toBe(200);
    const refused = await call('POST', '/api/v1/connectors', { key: reader.key, body: loanManifest() });
    expect(refused.statusCode).toBe(403);
    const other = await t.createKey(ws.orgId, { scopes: ['cases:read'] });
    expect((await call('GET', '/api/v1/connectors', { key: other.key })).statusCode).toBe(403);
  });

  it('keeps workspaces apart', async () => {
    const other = await t.workspace();
    const res = await call('GET', '/api/v1/connectors/loan_origination', { key: other.key });
    expect(res.statusCode).toBe(404);
  });
});
