import { afterAll, beforeAll, expect, it } from 'vitest';
import { executeAdminCommand } from '../../src/cli/admin-commands.ts';
import { connectListener, disconnectListener } from '../../src/domain/webhooks/listeners.ts';
import { systemClock } from '../../src/ports/clock.ts';
import { dashboardAgent, type DashboardAgent } from '../support/dashboard-agent.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { newOperator } from '../support/web.ts';
import { addEndpoint, PRIVATE_NETWORK_ENV, startReceiver, verifySignatures, type Receiver } from './fixtures.ts';

/**
 * Issue 25 §2: test events are kept in the delivery log like any delivery, and a refused endpoint
 * URL says how to receive webhooks locally (`dossier listen`) or names the setting that let
 * private addresses in.
 */
describeEachBackend('test events in the delivery log, and local addresses said where people look', (backend) => {
  let t: TestApp;
  let strict: TestApp;
  let ws: TestWorkspace;
  let admin: DashboardAgent;
  let ok: Receiver;
  let failing: Receiver;

  beforeAll(async () => {
    t = await createTestApp(backend, { clock: systemClock, env: PRIVATE_NETWORK_ENV });
    strict = await createTestApp(backend);
    ws = await t.workspace();
    const op = await newOperator(t, ws.orgId, 'admin');
    admin = await dashboardAgent(t, op.email, op.password);
    ok = await startReceiver();
    failing = await startReceiver(() => ({ status: 500, body: 'boom' }));
  });
  afterAll(async () => {
    await ok.close();
    await failing.close();
    await t.close();
    await strict.close();
  });

  const log = async (endpointId: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/deliveries?limit=100`, headers: { authorization: `Bearer ${ws.key}` } });
    return (res.json() as { deliveries: { delivery_id: string; endpoint_id: string; event_type: string; status: string; attempt_count: number }[] }).deliveries.filter(
      (d) => d.endpoint_id === endpointId,
    );
  };
  const detail = async (deliveryId: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/deliveries/${deliveryId}`, headers: { authorization: `Bearer ${ws.key}` } })).json() as {
      status: string;
      attempts: { attempt_number: number; status_code: number | null; error: string | null; response_excerpt: string | null }[];
    };

  it('regression: a test event sent to an endpoint through the API is kept in its delivery log, with its attempt', async () => {
    const endpoint = await addEndpoint(t.ctx, ws.orgId, ok.url);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks/test', headers: { authorization: `Bearer ${ws.key}` }, payload: { endpoint_url: ok.url, signing_secret: endpoint.signing_secret } });
    expect(res.json()).toMatchObject({ success: true, status_code: 200, stored: true });
    const id = res.json().delivery_id as string;
    verifySignatures(ok.requests.at(-1)!, endpoint.signing_secret);
    expect(await log(endpoint.endpoint_id)).toMatchObject([{ delivery_id: id, event_type: 'v1.webhook.test', status: 'delivered', attempt_count: 1 }]);
    expect((await detail(id)).attempts).toMatchObject([{ attempt_number: 1, status_code: 200, error: null, response_excerpt: 'ok' }]);
  });

  it('keeps a failed test as a failed delivery with its attempt, which the log can retry', async () => {
    const endpoint = await addEndpoint(t.ctx, ws.orgId, failing.url);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks/test', headers: { authorization: `Bearer ${ws.key}` }, payload: { endpoint_url: failing.url, signing_secret: endpoint.signing_secret } });
    expect(res.json()).toMatchObject({ success: false, status_code: 500, stored: true });
    const id = res.json().delivery_id as string;
    expect(await detail(id)).toMatchObject({ status: 'failed', attempts: [{ status_code: 500, response_excerpt: 'boom' }] });
    const retried = await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/deliveries/${id}/retry`, headers: { authorization: `Bearer ${ws.key}` } });
    expect(retried.json()).toMatchObject({ status: 'pending' });
  });

  it('does not keep a test to a URL that is none of the workspace’s endpoints (or signed with another secret)', async () => {
    const other = await startReceiver();
    try {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks/test', headers: { authorization: `Bearer ${ws.key}` }, payload: { endpoint_url: other.url, signing_secret: 'whsec_other' } });
      expect(res.json()).toMatchObject({ success: true, stored: false });
      const stored = await t.ctx.db.selectFrom('webhook_deliveries').select('delivery_id').where('delivery_id', '=', res.json().delivery_id).execute();
      expect(stored).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('regression: the dashboard’s "Send test event" shows up in the endpoint’s delivery log', async () => {
    const endpoint = await addEndpoint(t.ctx, ws.orgId, ok.url);
    const page = await admin.follow(await admin.post(`/dashboard/developers/webhooks/${endpoint.endpoint_id}/test`, {}, (await admin.get(`/dashboard/developers/webhooks/${endpoint.endpoint_id}`)).body));
    expect(page.body).toContain('Test event delivered');
    const [delivery] = await log(endpoint.endpoint_id);
    expect(delivery).toMatchObject({ event_type: 'v1.webhook.test', status: 'delivered', attempt_count: 1 });
    expect(page.body).toContain(delivery!.delivery_id);
    expect(page.body).not.toContain('Test events are not stored here');
  });

  it('shows a listener as a CLI listener, connected or not, and queues its test event for the stream', async () => {
    const own = await t.workspace({ name: 'Listener' });
    const op = await newOperator(t, own.orgId, 'admin');
    const agent = await dashboardAgent(t, op.email, op.password);
    const listener = await connectListener(t.ctx, { orgId: own.orgId, environment: 'test', forwardTo: 'http://localhost:4567/hook', events: [] });
    if (!listener.ok) throw new Error(listener.message);
    const list = await agent.get('/dashboard/developers/webhooks');
    expect(list.body).toContain('CLI listener → http://localhost:4567/hook');
    expect(list.body).toContain('Connected');
    await disconnectListener(t.ctx, { tenant: { orgId: own.orgId, environment: 'test' }, endpointId: listener.value.endpoint_id });
    const page = await agent.get(`/dashboard/developers/webhooks/${listener.value.endpoint_id}`);
    expect(page.body).toContain('Not connected');
    const queued = await agent.follow(await agent.post(`/dashboard/developers/webhooks/${listener.value.endpoint_id}/test`, {}, page.body));
    expect(queued.body).toContain('Test event queued for dossier listen');
    const rows = await t.ctx.db.selectFrom('webhook_deliveries').select(['event_type', 'status']).where('endpoint_id', '=', listener.value.endpoint_id).execute();
    expect(rows).toEqual([{ event_type: 'v1.webhook.test', status: 'pending' }]);
  });

  it('names `dossier listen` when the dashboard or the CLI refuses a private or http endpoint URL', async () => {
    const w = await strict.workspace();
    const op = await newOperator(strict, w.orgId, 'admin');
    const agent = await dashboardAgent(strict, op.email, op.password);
    const refused = await agent.post('/dashboard/developers/webhooks', { url: 'http://127.0.0.1:4567/hook', events: '*' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('npm run dossier -- listen --forward-to http://localhost:4567/hook');
    const cli = await executeAdminCommand(strict.runtime, ['endpoint', 'add', '--org', w.orgId, '--env', 'test', '--url', 'https://localhost/hook', '--events', '*']);
    expect(JSON.stringify(cli.result)).toContain('dossier -- listen');
  });

  it('names DOSSIER_ALLOW_PRIVATE_NETWORK when the deployment allows private networks', async () => {
    const refused = await admin.post('/dashboard/developers/webhooks', { url: 'ftp://127.0.0.1/hook', events: '*' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('DOSSIER_ALLOW_PRIVATE_NETWORK=true');
  });
});
