import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildEnvelope, envelopeIdempotencyKey } from '../../src/domain/webhooks/envelope.ts';
import { systemClock } from '../../src/ports/clock.ts';
import { envelopeIdempotencyKey as migration } from '../../src/storage/migrations/0010_envelope_idempotency_key.ts';
import { inTransaction } from '../../src/storage/unit-of-work.ts';
import { createTestApp, describeEachBackend, until, type TestApp } from '../support/harness.ts';
import { PRIVATE_NETWORK_ENV, addEndpoint, caseEvent, deliveryRow, enqueue, insertCase, startDeliveries, startReceiver, type Receiver, type RunningDeliveries } from './fixtures.ts';

describe('envelopeIdempotencyKey', () => {
  it('is the causing request key, else derived from the event id, never empty', () => {
    expect(envelopeIdempotencyKey({ idempotencyKey: 'create-loan-4711', eventId: 'evt_1' })).toBe('create-loan-4711');
    expect(envelopeIdempotencyKey({ idempotencyKey: null, eventId: 'evt_1' })).toBe('event:evt_1');
    expect(envelopeIdempotencyKey({ idempotencyKey: '', eventId: 'evt_1' })).toBe('event:evt_1');
    const a = buildEnvelope({ ...caseEvent('org_1', 'case_1', { eventId: 'evt_2' }) }, 'dlv_a', new Date());
    const b = buildEnvelope({ ...caseEvent('org_1', 'case_1', { eventId: 'evt_2' }) }, 'dlv_b', new Date());
    expect(a.idempotency_key).toBe('event:evt_2');
    expect(b.idempotency_key).toBe(a.idempotency_key);
  });
});

describeEachBackend('webhook idempotency_key', (backend) => {
  let t: TestApp;
  let running: RunningDeliveries;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    t = await createTestApp(backend, { clock: systemClock, env: { ...PRIVATE_NETWORK_ENV, WEBHOOK_RETRY_DELAYS: '0.05,0.05,0.05,0.05', WEBHOOK_TIMEOUT_MS: '1000' } });
    running = startDeliveries(t.ctx, backend);
  });
  afterEach(async () => {
    while (receivers.length > 0) await receivers.pop()!.close();
  });
  afterAll(async () => {
    await running.stop();
    await t.close();
  });

  it('is the same string in every attempt, endpoint and manual retry of an event no keyed request caused', async () => {
    const ws = await t.workspace();
    let failing = true;
    const flaky = await startReceiver(() => (failing ? { status: 500, body: 'down' } : { status: 200, body: 'ok' }));
    const healthy = await startReceiver();
    receivers.push(flaky, healthy);
    await addEndpoint(t.ctx, ws.orgId, flaky.url, ['v1.case.completed']);
    await addEndpoint(t.ctx, ws.orgId, healthy.url, ['v1.case.completed', 'v1.webhook.delivery_failed']);
    const caseId = await insertCase(t.ctx, ws.orgId);
    const event = caseEvent(ws.orgId, caseId, { idempotencyKey: null });
    const ids = await enqueue(t.ctx, event);
    expect(ids).toHaveLength(2);

    const flakyId = await until(async () => {
      for (const id of ids) if ((await deliveryRow(t.ctx, id)).status === 'failed') return id;
      return undefined;
    }, 20_000);
    expect(flaky.requests).toHaveLength(5);
    failing = false;
    const retried = await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/deliveries/${flakyId}/retry`, headers: { authorization: `Bearer ${ws.key}` } });
    expect(retried.statusCode).toBeLessThan(300);
    await until(() => flaky.requests.length >= 6, 20_000);

    const caseBodies = [...flaky.requests, ...healthy.requests].map((r) => JSON.parse(r.rawBody)).filter((b) => b.event_type === 'v1.case.completed');
    // Five attempts and the manual retry to one endpoint, one delivery to the other (at least).
    expect(caseBodies.length).toBeGreaterThanOrEqual(7);
    expect(new Set(caseBodies.map((b) => b.idempotency_key))).toEqual(new Set([`event:${event.eventId}`]));
    expect(new Set(caseBodies.map((b) => b.delivery_id)).size).toBe(2);

    // delivery_failed is an event of its own: its key is its own, not the failed event's.
    const failed = await until(() => healthy.requests.map((r) => JSON.parse(r.rawBody)).find((b) => b.event_type === 'v1.webhook.delivery_failed'), 20_000);
    expect(failed.idempotency_key).toBe(`event:${failed.event_id}`);
  });

  it('keeps the causing request key when there was one', async () => {
    const ws = await t.workspace();
    const r = await startReceiver();
    receivers.push(r);
    await addEndpoint(t.ctx, ws.orgId, r.url);
    const caseId = await insertCase(t.ctx, ws.orgId);
    await enqueue(t.ctx, caseEvent(ws.orgId, caseId, { idempotencyKey: 'create-loan-4711' }));
    await until(() => r.requests.length === 1);
    expect(JSON.parse(r.requests[0]!.rawBody).idempotency_key).toBe('create-loan-4711');
  });

  it('migration 0010 gives stored envelopes with a null key the derived one, keeping field order', async () => {
    const ws = await t.workspace();
    const caseId = await insertCase(t.ctx, ws.orgId);
    // No endpoint answers: the row stays as written while the migration edits it.
    await addEndpoint(t.ctx, ws.orgId, 'http://127.0.0.1:1/hooks');
    const event = caseEvent(ws.orgId, caseId, { data: { note: '"idempotency_key":null' } });
    const [id] = await enqueue(t.ctx, event);
    await t.ctx.db.updateTable('webhook_deliveries').set({ payload: sql`replace(payload, ${`"idempotency_key":"event:${event.eventId}"`}, '"idempotency_key":null')` }).where('delivery_id', '=', id!).execute();
    expect(JSON.parse((await deliveryRow(t.ctx, id!)).payload).idempotency_key).toBeNull();
    await inTransaction(t.ctx.db, (tx) => migration.up(tx));
    const payload = JSON.parse((await deliveryRow(t.ctx, id!)).payload);
    expect(payload.idempotency_key).toBe(`event:${event.eventId}`);
    expect(payload.data).toEqual({ note: '"idempotency_key":null' });
    expect(Object.keys(payload).indexOf('idempotency_key')).toBe(13);
  });
});
