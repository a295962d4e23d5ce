import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { rotateEndpointSecret, disableEndpointById } from '../../src/domain/webhooks/endpoints.ts';
import { systemClock } from '../../src/ports/clock.ts';
import { enqueueWebhookEvent } from '../../src/domain/webhooks/outbox.ts';
import { listAttempts } from '../../src/storage/webhooks/deliveries.ts';
import { inTransaction } from '../../src/storage/unit-of-work.ts';
import { createTestApp, describeEachBackend, until, type TestApp, type TestWorkspace } from '../support/harness.ts';
import {
  PRIVATE_NETWORK_ENV,
  addEndpoint,
  caseEvent,
  caseHandoff,
  deliveryRow,
  enqueue,
  insertCase,
  startDeliveries,
  startReceiver,
  verifySignatures,
  type Receiver,
  type RunningDeliveries,
} from './fixtures.ts';

describeEachBackend('webhook delivery', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let running: RunningDeliveries;
  const receivers: Receiver[] = [];

  async function receiver(...args: Parameters<typeof startReceiver>) {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  }

  beforeAll(async () => {
    // Retries fall due by the real clock here; the exact schedule is tested with a manual clock in schedule.test.ts.
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

  it('delivers a case.completed event with the spec envelope, verifiable by Stripe and Standard Webhooks, and marks the handoff delivered', async () => {
    ws = await t.workspace();
    const r = await receiver();
    const endpoint = await addEndpoint(t.ctx, ws.orgId, r.url, ['v1.case.completed']);
    expect(endpoint.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const caseId = await insertCase(t.ctx, ws.orgId, 'test', { externalCaseId: 'loan-4711' });
    const event = caseEvent(ws.orgId, caseId, { externalCaseId: 'loan-4711', sessionId: null, idempotencyKey: 'k-1' });
    const [deliveryId] = await enqueue(t.ctx, event);
    expect((await caseHandoff(t.ctx, caseId)).handoff_delivery_id).toBe(deliveryId);

    await until(() => r.requests.length === 1);
    const request = r.requests[0]!;
    verifySignatures(request, endpoint.signing_secret);
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toMatch(/^Dossier-Webhooks\//);
    expect(request.headers['webhook-id']).toBe(deliveryId);
    const body = JSON.parse(request.rawBody);
    expect(Object.keys(body)).toEqual([
      'event_id', 'delivery_id', 'event_type', 'semantic_event_type', 'schema_version', 'created_at', 'occurred_at', 'org_id',
      'case_id', 'session_id', 'external_case_id', 'external_applicant_id', 'external_customer_id', 'idempotency_key', 'trace_id', 'data',
    ]);
    expect(body).toMatchObject({
      event_id: event.eventId,
      delivery_id: deliveryId,
      event_type: 'v1.case.completed',
      semantic_event_type: 'case.completed',
      schema_version: 'v1',
      org_id: ws.orgId,
      case_id: caseId,
      session_id: null,
      external_case_id: 'loan-4711',
      external_applicant_id: null,
      external_customer_id: null,
      idempotency_key: 'k-1',
      trace_id: event.traceId,
      data: { case_status: 'approved' },
    });
    expect(body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    await until(async () => (await deliveryRow(t.ctx, deliveryId!)).status === 'delivered');
    const row = await deliveryRow(t.ctx, deliveryId!);
    expect(row).toMatchObject({ attempt_count: 1, next_attempt_at: null, locked_by: null, last_status_code: 200, last_error: null });
    await until(async () => (await caseHandoff(t.ctx, caseId)).handoff_state === 'delivered');
    const attempts = await listAttempts(t.ctx.db, { orgId: ws.orgId, environment: 'test' }, deliveryId!);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ attempt_number: 1, status_code: 200, error: null, response_excerpt: 'ok' });
  });

  it('creates one delivery per enabled endpoint subscribed to the event', async () => {
    const w = await t.workspace();
    const r = await receiver();
    const named = await addEndpoint(t.ctx, w.orgId, r.url, ['v1.case.completed']);
    const wildcard = await addEndpoint(t.ctx, w.orgId, r.url, ['*']);
    await addEndpoint(t.ctx, w.orgId, r.url, ['v1.intake.submitted']);
    const disabled = await addEndpoint(t.ctx, w.orgId, r.url, ['*']);
    await disableEndpointById(t.ctx, { tenant: { orgId: w.orgId, environment: 'test' }, endpointId: disabled.endpoint_id });
    await addEndpoint(t.ctx, w.orgId, r.url, ['*'], 'live');
    const caseId = await insertCase(t.ctx, w.orgId);
    // Looked at inside the enqueuing transaction, before any worker can see (and deliver) it.
    const ids = await inTransaction(t.ctx.db, async (tx) => {
      const { deliveryIds } = await enqueueWebhookEvent(tx, t.ctx, caseEvent(w.orgId, caseId));
      const handoff = await tx.selectFrom('cases').select(['handoff_state', 'handoff_delivery_id']).where('case_id', '=', caseId).executeTakeFirstOrThrow();
      expect(handoff).toEqual({ handoff_state: 'dispatching', handoff_delivery_id: deliveryIds[0] });
      return deliveryIds;
    });
    t.ctx.wake.notify('webhook-deliveries');
    expect(ids).toHaveLength(2);
    const rows = await Promise.all(ids.map((id) => deliveryRow(t.ctx, id)));
    expect(rows.map((d) => d.endpoint_id).sort()).toEqual([named.endpoint_id, wildcard.endpoint_id].sort());
    await until(() => r.requests.length === 2);
    expect(new Set(r.requests.map((q) => q.headers['webhook-id']))).toEqual(new Set(ids));
    // Once delivered, the handoff points at the delivery that arrived first.
    await until(async () => (await caseHandoff(t.ctx, caseId)).handoff_state === 'delivered');
    expect(ids).toContain((await caseHandoff(t.ctx, caseId)).handoff_delivery_id);
  });

  it('marks a completed case dispatch_failed, with a notification, when no endpoint is subscribed', async () => {
    const w = await t.workspace();
    const caseId = await insertCase(t.ctx, w.orgId);
    expect(await enqueue(t.ctx, caseEvent(w.orgId, caseId))).toEqual([]);
    expect(await caseHandoff(t.ctx, caseId)).toMatchObject({ handoff_state: 'dispatch_failed', handoff_delivery_id: null });
    const notes = await t.ctx.db.selectFrom('integration_notifications').selectAll().where('org_id', '=', w.orgId).execute();
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ kind: 'webhook_no_endpoint', data: { case_id: caseId } });
  });

  it('sends the same body on every attempt, signed afresh, and delivers after failures', async () => {
    const w = await t.workspace();
    const r = await receiver((_req, i) => (i < 2 ? { status: i === 0 ? 500 : 302, body: 'nope', headers: { location: 'http://127.0.0.1:1/' } } : { status: 204 }));
    const endpoint = await addEndpoint(t.ctx, w.orgId, r.url);
    const caseId = await insertCase(t.ctx, w.orgId);
    const [id] = await enqueue(t.ctx, caseEvent(w.orgId, caseId));
    await until(async () => (await deliveryRow(t.ctx, id!)).status === 'delivered');
    expect(r.requests).toHaveLength(3);
    expect(new Set(r.requests.map((q) => q.rawBody)).size).toBe(1);
    for (const q of r.requests) verifySignatures(q, endpoint.signing_secret);
    const attempts = await listAttempts(t.ctx.db, { orgId: w.orgId, environment: 'test' }, id!);
    expect(attempts.map((a) => [a.attempt_number, a.status_code])).toEqual([[1, 500], [2, 302], [3, 204]]);
    expect(attempts[0]!.error).toBe('HTTP 500');
    expect(attempts[0]!.response_excerpt).toBe('nope');
    expect(attempts[1]!.error).toMatch(/redirects are not followed/);
    expect((await deliveryRow(t.ctx, id!)).attempt_count).toBe(3);
  });

  it('after the fifth failed attempt: failed, v1.webhook.delivery_failed to its subscribers, a notification, handoff dispatch_failed', async () => {
    const w = await t.workspace();
    const failing = await receiver(() => ({ status: 503, body: 'down' }));
    const monitor = await receiver();
    await addEndpoint(t.ctx, w.orgId, failing.url, ['v1.case.completed']);
    const monitorEndpoint = await addEndpoint(t.ctx, w.orgId, monitor.url, ['v1.webhook.delivery_failed']);
    const caseId = await insertCase(t.ctx, w.orgId, 'test', { externalCaseId: 'ext-9' });
    const [id] = await enqueue(t.ctx, caseEvent(w.orgId, caseId, { externalCaseId: 'ext-9' }));

    await until(async () => (await deliveryRow(t.ctx, id!)).status === 'failed');
    expect(failing.requests).toHaveLength(5);
    const row = await deliveryRow(t.ctx, id!);
    expect(row).toMatchObject({ attempt_count: 5, next_attempt_at: null, last_status_code: 503 });
    expect(row.failed_at).not.toBeNull();
    expect(await caseHandoff(t.ctx, caseId)).toMatchObject({ handoff_state: 'dispatch_failed' });

    await until(() => monitor.requests.length === 1);
    verifySignatures(monitor.requests[0]!, monitorEndpoint.signing_secret);
    const failure = JSON.parse(monitor.requests[0]!.rawBody);
    expect(failure).toMatchObject({
      event_type: 'v1.webhook.delivery_failed',
      semantic_event_type: 'webhook.delivery_failed',
      case_id: caseId,
      external_case_id: 'ext-9',
      data: { delivery_id: id, event_type: 'v1.case.completed', attempts: 5, last_status_code: 503 },
    });
    const notes = await t.ctx.db.selectFrom('integration_notifications').selectAll().where('org_id', '=', w.orgId).execute();
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ kind: 'webhook_delivery_failed', data: { delivery_id: id, case_id: caseId } });
  });

  it('never emits delivery_failed about a failed delivery_failed delivery', async () => {
    const w = await t.workspace();
    const failing = await receiver(() => ({ status: 500 }));
    await addEndpoint(t.ctx, w.orgId, failing.url, ['*']);
    const caseId = await insertCase(t.ctx, w.orgId);
    await enqueue(t.ctx, caseEvent(w.orgId, caseId));
    // The case.completed delivery fails, its delivery_failed (to the same '*' endpoint) fails too, and nothing follows.
    await until(async () => {
      const rows = await t.ctx.db.selectFrom('webhook_deliveries').select(['event_type', 'status']).where('org_id', '=', w.orgId).execute();
      return rows.length === 2 && rows.every((d) => d.status === 'failed');
    });
    const rows = await t.ctx.db.selectFrom('webhook_deliveries').select('event_type').where('org_id', '=', w.orgId).orderBy('created_at').execute();
    expect(rows.map((d) => d.event_type).sort()).toEqual(['v1.case.completed', 'v1.webhook.delivery_failed']);
    expect(failing.requests).toHaveLength(10);
    const notes = await t.ctx.db.selectFrom('integration_notifications').select('kind').where('org_id', '=', w.orgId).execute();
    expect(notes.map((n) => n.kind)).toEqual(['webhook_delivery_failed', 'webhook_delivery_failed']);
  });

  it('signs with both the old and the new secret for 24 hours after a rotation', async () => {
    const w = await t.workspace();
    const r = await receiver();
    const endpoint = await addEndpoint(t.ctx, w.orgId, r.url);
    const rotated = await rotateEndpointSecret(t.ctx, { tenant: { orgId: w.orgId, environment: 'test' }, endpointId: endpoint.endpoint_id });
    if (!rotated.ok) throw new Error(rotated.message);
    expect(rotated.value.signing_secret).not.toBe(endpoint.signing_secret);
    const overlapMs = new Date(rotated.value.previous_secret_expires_at!).getTime() - t.clock.now().getTime();
    expect(Math.abs(overlapMs - 24 * 3600 * 1000)).toBeLessThan(1000);
    const caseId = await insertCase(t.ctx, w.orgId);
    await enqueue(t.ctx, caseEvent(w.orgId, caseId));
    await until(() => r.requests.length === 1);
    const q = r.requests[0]!;
    expect(String(q.headers['x-service-signature']).match(/v1=/g)).toHaveLength(2);
    expect(String(q.headers['webhook-signature']).split(' ')).toHaveLength(2);
    verifySignatures(q, rotated.value.signing_secret);
    verifySignatures(q, endpoint.signing_secret);
  });

  it('keeps a slow endpoint from delaying another one', async () => {
    const w = await t.workspace();
    const slow = await receiver(() => ({ status: 200, delayMs: 5_000 }));
    const fast = await receiver();
    await addEndpoint(t.ctx, w.orgId, slow.url);
    await addEndpoint(t.ctx, w.orgId, fast.url, ['v1.intake.submitted']);
    const caseId = await insertCase(t.ctx, w.orgId);
    for (let i = 0; i < 40; i++) await enqueue(t.ctx, caseEvent(w.orgId, caseId, { eventType: 'v1.case.needs_input' }));
    await until(() => slow.requests.length >= 8);
    const started = Date.now();
    await enqueue(t.ctx, caseEvent(w.orgId, caseId, { eventType: 'v1.intake.submitted' }));
    await until(() => fast.requests.length === 1);
    // Well inside the slow endpoint's 1 s timeout: the fast endpoint did not wait for a slot.
    expect(fast.requests[0]!.at - started).toBeLessThan(500);
    expect(running.task.inFlight).toBeLessThanOrEqual(32);
  });
});
