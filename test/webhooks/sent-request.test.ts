import { afterAll, beforeAll, expect, it } from 'vitest';
import { rotateEndpointSecret } from '../../src/domain/webhooks/endpoints.ts';
import { sentRequestOf } from '../../src/domain/webhooks/sent-request.ts';
import { systemClock } from '../../src/ports/clock.ts';
import { createTestApp, describeEachBackend, until, type TestApp } from '../support/harness.ts';
import { PRIVATE_NETWORK_ENV, addEndpoint, caseEvent, enqueue, insertCase, startDeliveries, startReceiver, type Receiver, type RunningDeliveries } from './fixtures.ts';

/** The delivery log's "request as sent" must be what the receiver got: same body bytes, same signed headers. */
describeEachBackend('the request a delivery sent, as the delivery log shows it', (backend) => {
  let t: TestApp;
  let running: RunningDeliveries;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await createTestApp(backend, { clock: systemClock, env: { ...PRIVATE_NETWORK_ENV } });
    running = startDeliveries(t.ctx, backend);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await running.stop();
    await t.close();
  });

  const shown = async (orgId: string, deliveryId: string) => {
    const sent = await sentRequestOf(t.ctx, { orgId, environment: 'test', deliveryId });
    if (!sent.ok) throw new Error(sent.message);
    return { ...sent.value, headers: Object.fromEntries((sent.value.headers ?? []).map(([k, v]) => [k.toLowerCase(), v])) };
  };

  it('shows the body and the signed headers the receiver got; after a rotation, says the old signatures are unknown', async () => {
    const ws = await t.workspace();
    const endpoint = await addEndpoint(t.ctx, ws.orgId, receiver.url, ['v1.case.completed']);
    const caseId = await insertCase(t.ctx, ws.orgId, 'test', {});
    const [first] = await enqueue(t.ctx, caseEvent(ws.orgId, caseId));
    await until(() => receiver.requests.some((r) => r.headers['webhook-id'] === first));
    const got = receiver.requests.find((r) => r.headers['webhook-id'] === first)!;
    // The attempt row is written after the answer: wait until the log has it.
    await until(async () => (await shown(ws.orgId, first!)).headers['x-service-signature'] !== undefined);
    const before = await shown(ws.orgId, first!);
    expect(before.body).toBe(got.rawBody);
    expect(before.signaturesKnown).toBe(true);
    for (const name of ['content-type', 'user-agent', 'x-service-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      expect(before.headers[name], name).toBe(got.headers[name]);
    }

    const rotated = await rotateEndpointSecret(t.ctx, { tenant: { orgId: ws.orgId, environment: 'test' }, endpointId: endpoint.endpoint_id });
    expect(rotated.ok).toBe(true);
    const after = await shown(ws.orgId, first!);
    expect(after.signaturesKnown).toBe(false);
    expect(after.headers['x-service-signature']).toBeUndefined();
    expect(after.headers['webhook-timestamp']).toBe(got.headers['webhook-timestamp']);

    // Sent during the overlap: signed by both secrets, and shown with both.
    const [second] = await enqueue(t.ctx, caseEvent(ws.orgId, caseId));
    await until(async () => (await shown(ws.orgId, second!)).headers['x-service-signature'] !== undefined);
    const gotSecond = receiver.requests.find((r) => r.headers['webhook-id'] === second)!;
    const both = await shown(ws.orgId, second!);
    expect(both.headers['x-service-signature']).toBe(gotSecond.headers['x-service-signature']);
    expect(both.headers['x-service-signature']!.match(/v1=/g)).toHaveLength(2);
    expect(both.headers['webhook-signature']).toBe(gotSecond.headers['webhook-signature']);
  });

  it('refuses another workspace’s delivery', async () => {
    const ws = await t.workspace();
    const other = await t.workspace();
    await addEndpoint(t.ctx, ws.orgId, receiver.url, ['v1.case.completed']);
    const [id] = await enqueue(t.ctx, caseEvent(ws.orgId, await insertCase(t.ctx, ws.orgId, 'test', {})));
    const refused = await sentRequestOf(t.ctx, { orgId: other.orgId, environment: 'test', deliveryId: id! });
    expect(refused).toMatchObject({ ok: false, code: 'not_found' });
  });
});
