import { PassThrough } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { executeAdminCommand } from '../../src/cli/admin-commands.ts';
import { listen } from '../../src/cli/commands/listen.ts';
import { connectListener, disconnectListener, listenerStates } from '../../src/domain/webhooks/listeners.ts';
import { listEndpointViews } from '../../src/domain/webhooks/endpoints.ts';
import { systemClock } from '../../src/ports/clock.ts';
import { claimDueDeliveriesUnscoped } from '../../src/storage/webhooks/deliveries.ts';
import { createTestApp, describeEachBackend, until, type TestApp } from '../support/harness.ts';
import { caseEvent, deliveryRow, enqueue, insertCase, startDeliveries, startReceiver, verifySignatures } from './fixtures.ts';

/**
 * The listener's place in the delivery pipeline, on both databases: the stream and the worker
 * share the outbox and the claim, and never take each other's work. The CLI runs in-process here
 * (its own process in listen.test.ts).
 */
describeEachBackend('webhook listeners in the delivery pipeline', (backend) => {
  let t: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    t = await createTestApp(backend, { clock: systemClock });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await t.close();
  });

  const connect = (orgId: string, forwardTo = 'http://localhost:4567/hook') =>
    connectListener(t.ctx, { orgId, environment: 'test', forwardTo, events: [] }).then((r) => {
      if (!r.ok) throw new Error(r.message);
      return r.value;
    });

  it('forwards through an in-process `listen`: signed as an endpoint is, recorded as its attempt', async () => {
    const ws = await t.workspace({ name: 'In process' });
    const local = await startReceiver();
    const out = new PassThrough();
    let printed = '';
    out.on('data', (c) => (printed += c));
    const stop = new AbortController();
    const running = listen(['--forward-to', local.url, '--api-key', ws.key, '--base-url', baseUrl], {
      json: true,
      env: {},
      adminCommand: (words) => executeAdminCommand(t.runtime, words),
      stdout: out,
      stderr: out,
      signal: stop.signal,
    });
    try {
      const ready = await until(() => printed.split('\n').map((l) => (l ? (JSON.parse(l) as Record<string, unknown>) : undefined)).find((l) => l?.type === 'ready'));
      const [deliveryId] = await enqueue(t.ctx, caseEvent(ws.orgId, await insertCase(t.ctx, ws.orgId)));
      await until(async () => (await deliveryRow(t.ctx, deliveryId!)).status === 'delivered', 15_000);
      verifySignatures(local.requests[0]!, String(ready.signing_secret));
      await until(() => printed.includes(`"delivery_id":"${deliveryId}"`));
    } finally {
      stop.abort();
      expect(await running).toBe(0);
      await local.close();
    }
    // The stream closed: the listener is shown as not connected.
    const states = await listenerStates(t.ctx, { orgId: ws.orgId, environment: 'test' });
    await until(async () => [...(await listenerStates(t.ctx, { orgId: ws.orgId, environment: 'test' })).values()].every((s) => !s.connected));
    expect([...states.values()].map((s) => s.name)).toEqual(['cli']);
  });

  it('leaves a connected listener’s deliveries to its stream, and claims them for the stream alone', async () => {
    const ws = await t.workspace();
    const listener = await connect(ws.orgId);
    const [deliveryId] = await enqueue(t.ctx, caseEvent(ws.orgId, await insertCase(t.ctx, ws.orgId)));
    const now = t.ctx.clock.now();
    const lease = { now, leaseUntil: new Date(now.getTime() + 20_000), limit: 100, perEndpointLimit: 8, inFlight: new Map<string, number>() };
    const byWorker = await claimDueDeliveriesUnscoped(t.ctx.db, { ...lease, workerId: 'worker' });
    expect(byWorker.map((d) => d.delivery_id)).not.toContain(deliveryId);
    const byStream = await claimDueDeliveriesUnscoped(t.ctx.db, { ...lease, workerId: 'listen:test', endpointId: listener.endpoint_id });
    expect(byStream).toMatchObject([{ delivery_id: deliveryId, kind: 'listener', url: 'http://localhost:4567/hook' }]);
  });

  it('fails a listener’s attempt without sending when no stream is open, and retries it on the schedule', async () => {
    const ws = await t.workspace();
    const local = await startReceiver();
    const listener = await connect(ws.orgId, local.url);
    await disconnectListener(t.ctx, { tenant: { orgId: ws.orgId, environment: 'test' }, endpointId: listener.endpoint_id });
    const [deliveryId] = await enqueue(t.ctx, caseEvent(ws.orgId, await insertCase(t.ctx, ws.orgId)));
    const worker = startDeliveries(t.ctx, backend);
    try {
      const row = await until(async () => {
        const r = await deliveryRow(t.ctx, deliveryId!);
        return r.total_attempts >= 1 && r;
      });
      expect(row).toMatchObject({ status: 'retry_scheduled', attempt_count: 1, last_status_code: null, last_error: 'no `dossier listen` connected' });
      expect(local.requests).toHaveLength(0);

      // Reconnecting brings the waiting retry forward: it is due now.
      await connect(ws.orgId, local.url);
      const after = await deliveryRow(t.ctx, deliveryId!);
      expect(after.next_attempt_at!.getTime()).toBeLessThanOrEqual(Date.now());
    } finally {
      await worker.stop();
      await local.close();
    }
  });

  it('reuses one listener per workspace: same endpoint, same secret, listed as a listener', async () => {
    const ws = await t.workspace();
    const first = await connect(ws.orgId, 'http://localhost:4567/hook');
    const second = await connect(ws.orgId, 'http://127.0.0.1:9999/other');
    expect(second.endpoint_id).toBe(first.endpoint_id);
    expect(second.signing_secret).toBe(first.signing_secret);
    const endpoints = await listEndpointViews(t.ctx, { tenant: { orgId: ws.orgId, environment: 'test' } });
    expect(endpoints).toMatchObject([{ endpoint_id: first.endpoint_id, url: 'http://127.0.0.1:9999/other' }]);
    const listed = await executeAdminCommand(t.runtime, ['endpoint', 'list', '--org', ws.orgId, '--env', 'test']);
    expect((listed.result as { endpoints: unknown[] }).endpoints).toMatchObject([{ endpoint_id: first.endpoint_id, kind: 'listener', listener: { name: 'cli', connected: true } }]);
  });

  it('refuses a result whose lease is not the one it was handed out under', async () => {
    const ws = await t.workspace();
    await connect(ws.orgId);
    const [deliveryId] = await enqueue(t.ctx, caseEvent(ws.orgId, await insertCase(t.ctx, ws.orgId)));
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/listen/results',
      headers: { authorization: `Bearer ${ws.key}` },
      payload: { delivery_id: deliveryId, attempt_token: 'listen:forged', status_code: 200, duration_ms: 3, error: null },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: { code: 'invalid_request', param: 'attempt_token' } });
    expect((await deliveryRow(t.ctx, deliveryId!)).total_attempts).toBe(0);
  });

  it.each([
    [{ forward_to: 'ftp://localhost/x' }, 'forward_to'],
    [{ forward_to: 'http://localhost:4567/hook', events: 'case.exploded' }, 'events'],
  ])('refuses %j at connect, naming the field', async (query, param) => {
    const ws = await t.workspace();
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/webhooks/listen', query, headers: { authorization: `Bearer ${ws.key}` } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: { code: 'invalid_request', param } });
  });

  it('needs the webhooks:listen scope', async () => {
    const ws = await t.workspace();
    const key = await t.createKey(ws.orgId, { scopes: ['webhooks:test'] });
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/webhooks/listen', query: { forward_to: 'http://localhost:4567/hook' }, headers: { authorization: `Bearer ${key.key}` } });
    expect(res.statusCode).toBe(403);
  });
});
