import { afterAll, beforeAll, expect, it } from 'vitest';
import { executeAdminCommand } from '../../src/cli/admin-commands.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { PRIVATE_NETWORK_ENV } from './fixtures.ts';

describeEachBackend('dossier endpoint and notifications commands', (backend) => {
  // Receivers are loopback URLs (no DNS, nothing sent: adding an endpoint sends nothing); the
  // strict app checks the refusals of the default network policy.
  let t: TestApp;
  let strict: TestApp;
  let ws: TestWorkspace;
  const run = (...argv: string[]) => executeAdminCommand(t.runtime, argv);

  beforeAll(async () => {
    t = await createTestApp(backend, { env: PRIVATE_NETWORK_ENV });
    strict = await createTestApp(backend);
    ws = await t.workspace();
  });
  afterAll(async () => {
    await t.close();
    await strict.close();
  });

  it('adds, lists, rotates, disables and enables an endpoint', async () => {
    const added = await run('endpoint', 'add', '--org', ws.orgId, '--env', 'test', '--url', 'http://127.0.0.1:9/dossier', '--events', 'v1.case.completed,intake.submitted');
    expect(added.exitCode).toBe(0);
    const endpoint = added.result as Record<string, unknown>;
    expect(endpoint).toMatchObject({ url: 'http://127.0.0.1:9/dossier', events: ['v1.case.completed', 'v1.intake.submitted'], enabled: true });
    expect(endpoint.endpoint_id).toMatch(/^ep_/);
    expect(endpoint.signing_secret).toMatch(/^whsec_/);
    expect(Buffer.from(String(endpoint.signing_secret).slice(6), 'base64')).toHaveLength(32);

    const listed = await run('endpoint', 'list', '--org', ws.orgId, '--env', 'test');
    const endpoints = (listed.result as { endpoints: Record<string, unknown>[] }).endpoints;
    expect(endpoints).toHaveLength(1);
    expect(JSON.stringify(listed.result)).not.toContain(String(endpoint.signing_secret));

    const rotated = await run('endpoint', 'rotate-secret', String(endpoint.endpoint_id));
    expect(rotated.exitCode).toBe(0);
    expect((rotated.result as Record<string, unknown>).signing_secret).not.toBe(endpoint.signing_secret);
    expect((rotated.result as Record<string, unknown>).previous_secret_expires_at).not.toBeNull();

    const disabled = await run('endpoint', 'disable', String(endpoint.endpoint_id));
    expect(disabled.result).toMatchObject({ enabled: false });
    expect((disabled.result as Record<string, unknown>).disabled_at).not.toBeNull();
    const enabled = await run('endpoint', 'enable', String(endpoint.endpoint_id));
    expect(enabled.exitCode).toBe(0);
    expect(enabled.result).toMatchObject({ enabled: true, disabled_at: null });
    const row = await t.ctx.db.selectFrom('webhook_endpoints').select(['enabled', 'disabled_at']).where('endpoint_id', '=', String(endpoint.endpoint_id)).executeTakeFirstOrThrow();
    expect(row).toEqual({ enabled: true, disabled_at: null });
    expect((await run('endpoint', 'list', '--org', ws.orgId, '--env', 'live')).result).toEqual({ endpoints: [] });
  });

  it('stores the signing secret sealed, never in clear', async () => {
    const added = await run('endpoint', 'add', '--org', ws.orgId, '--env', 'test', '--url', 'http://127.0.0.1:9/x', '--events', '*');
    const secret = String((added.result as Record<string, unknown>).signing_secret);
    const row = await t.ctx.db.selectFrom('webhook_endpoints').selectAll().where('endpoint_id', '=', String((added.result as Record<string, unknown>).endpoint_id)).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));
  });

  it.each([
    [['--url', 'http://127.0.0.1:9/x', '--events', '*'], 'invalid_endpoint_url'],
    [['--url', 'https://127.0.0.1/x', '--events', '*'], 'invalid_endpoint_url'],
    [['--url', 'https://[::ffff:127.0.0.1]/x', '--events', '*'], 'invalid_endpoint_url'],
    [['--url', 'https://localhost/x', '--events', '*'], 'invalid_endpoint_url'],
    [['--url', 'not a url', '--events', '*'], 'invalid_endpoint_url'],
  ])('refuses %j with %s under the default network policy', async (flags, code) => {
    const org = await strict.workspace();
    const out = await executeAdminCommand(strict.runtime, ['endpoint', 'add', '--org', org.orgId, '--env', 'test', ...flags]);
    expect(out.exitCode).toBe(1);
    expect(out.result).toMatchObject({ error: { code } });
  });

  it.each([['case.exploded'], ['*,v1.case.completed'], ['v1.webhook.test']])('refuses the subscription %s', async (events) => {
    const out = await run('endpoint', 'add', '--org', ws.orgId, '--env', 'test', '--url', 'http://127.0.0.1:9/x', '--events', events);
    expect(out.exitCode).toBe(1);
    expect(out.result).toMatchObject({ error: { code: 'invalid_request' } });
  });

  it('reports usage problems and unknown ids', async () => {
    expect((await run('endpoint', 'add', '--org', ws.orgId, '--env', 'prod', '--url', 'http://127.0.0.1:9/', '--events', '*')).exitCode).toBe(2);
    expect((await run('endpoint', 'add', '--org', 'org_missing', '--env', 'test', '--url', 'http://127.0.0.1:9/', '--events', '*')).result).toMatchObject({ error: { code: 'not_found' } });
    expect((await run('endpoint', 'disable', 'ep_missing')).result).toMatchObject({ error: { code: 'not_found' } });
    expect((await run('endpoint', 'enable', 'ep_missing')).result).toMatchObject({ error: { code: 'not_found' } });
    expect((await run('endpoint', 'rotate-secret', 'ep_missing')).result).toMatchObject({ error: { code: 'not_found' } });
  });

  it('lists notifications', async () => {
    const out = await run('notifications', 'list', '--org', ws.orgId, '--env', 'test');
    expect(out.exitCode).toBe(0);
    expect(out.result).toEqual({ notifications: [], has_more: false, next_cursor: null });
  });
});
