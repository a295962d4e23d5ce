import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/ports/clock.ts';
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

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwbCDqbrFbbrw=';

describeEachBackend('webhook API', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let running: RunningDeliveries;
  let ok: Receiver;
  let failing: Receiver;

  const call = (method: 'GET' | 'POST', url: string, options: { key?: string; body?: unknown; payload?: string; headers?: Record<string, string> } = {}) =>
    t.app.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${options.key ?? ws.key}`,
        ...(options.body !== undefined || options.payload !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(options.payload !== undefined ? { payload: options.payload } : options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
    });

  /** A case.completed delivery that reached `receiver` (or failed for good there). */
  async function deliveredHandoff(receiver: Receiver = ok, status: 'delivered' | 'failed' = 'delivered', workspace = ws) {
    const caseId = await insertCase(t.ctx, workspace.orgId);
    const [id] = await enqueue(t.ctx, caseEvent(workspace.orgId, caseId));
    await until(async () => (await deliveryRow(t.ctx, id!)).status === status);
    return { caseId, deliveryId: id! };
  }

  beforeAll(async () => {
    t = await createTestApp(backend, { clock: systemClock, env: { ...PRIVATE_NETWORK_ENV, WEBHOOK_RETRY_DELAYS: '0,0,0,0', WEBHOOK_TIMEOUT_MS: '1000' } });
    ws = await t.workspace();
    ok = await startReceiver();
    failing = await startReceiver(() => ({ status: 500, body: 'boom' }));
    running = startDeliveries(t.ctx, backend);
  });
  afterAll(async () => {
    await running.stop();
    await ok.close();
    await failing.close();
    await t.close();
  });

  describe('POST /api/v1/webhooks/test', () => {
    it('sends a signed v1.webhook.test and reports the answer', async () => {
      const res = await call('POST', '/api/v1/webhooks/test', { body: { endpoint_url: ok.url, signing_secret: SECRET } });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ success: true, status_code: 200 });
      expect(body.error).toBeUndefined();
      const received = ok.requests.at(-1)!;
      verifySignatures(received, SECRET);
      expect(JSON.parse(received.rawBody)).toMatchObject({ event_type: 'v1.webhook.test', delivery_id: body.delivery_id, org_id: ws.orgId, case_id: null });
    });

    it('answers success false with the status of a failing receiver', async () => {
      const res = await call('POST', '/api/v1/webhooks/test', { body: { endpoint_url: failing.url, signing_secret: SECRET } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ success: false, status_code: 500, error: 'HTTP 500' });
    });

    it('answers success false, status_code null and an error when nothing answers', async () => {
      const gone = await startReceiver();
      await gone.close();
      const res = await call('POST', '/api/v1/webhooks/test', { body: { endpoint_url: gone.url, signing_secret: SECRET } });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ success: false, status_code: null });
      expect(body.error).toMatch(/ECONNREFUSED|connect/i);
    });

    it.each([
      [{ signing_secret: SECRET }, 'missing_endpoint_url'],
      [{ endpoint_url: '  ', signing_secret: SECRET }, 'missing_endpoint_url'],
      [{ endpoint_url: 'https://hooks.example.com/x' }, 'missing_signing_secret'],
      [{ endpoint_url: 'https://hooks.example.com/x', signing_secret: '' }, 'missing_signing_secret'],
      [{ endpoint_url: 'not a url', signing_secret: SECRET }, 'invalid_endpoint_url'],
      [{ endpoint_url: 42, signing_secret: SECRET }, 'invalid_endpoint_url'],
      [{ endpoint_url: 'ftp://127.0.0.1/x', signing_secret: SECRET }, 'invalid_endpoint_url'],
    ])('refuses %j with %s', async (body, code) => {
      const res = await call('POST', '/api/v1/webhooks/test', { body });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ type: 'validation_error', code });
    });

    it('needs the webhooks:test scope', async () => {
      const key = await t.createKey(ws.orgId, { scopes: ['webhooks:read'] });
      const res = await call('POST', '/api/v1/webhooks/test', { key: key.key, body: { endpoint_url: ok.url, signing_secret: SECRET } });
      expect(res.statusCode).toBe(403);
    });
  });

  describe('delivery log', () => {
    let caseA: string;
    let delivered: string[];
    let failedId: string;

    beforeAll(async () => {
      // A workspace of its own, so the log holds exactly what this block wrote.
      ws = await t.workspace();
      await addEndpoint(t.ctx, ws.orgId, ok.url, ['v1.case.completed', 'v1.intake.submitted']);
      caseA = await insertCase(t.ctx, ws.orgId);
      const caseB = await insertCase(t.ctx, ws.orgId);
      delivered = [
        ...(await enqueue(t.ctx, caseEvent(ws.orgId, caseA, { eventType: 'v1.intake.submitted' }))),
        ...(await enqueue(t.ctx, caseEvent(ws.orgId, caseA))),
        ...(await enqueue(t.ctx, caseEvent(ws.orgId, caseB, { eventType: 'v1.intake.submitted' }))),
      ];
      await until(async () => (await Promise.all(delivered.map((id) => deliveryRow(t.ctx, id)))).every((d) => d.status === 'delivered'));
      const failEndpoint = await addEndpoint(t.ctx, ws.orgId, failing.url, ['v1.session.expired']);
      failedId = (await enqueue(t.ctx, caseEvent(ws.orgId, caseB, { eventType: 'v1.session.expired' })))[0]!;
      await until(async () => (await deliveryRow(t.ctx, failedId)).status === 'failed');
      expect(failEndpoint.endpoint_id).toMatch(/^ep_/);
    });

    it('lists newest first with filters', async () => {
      const all = (await call('GET', '/api/v1/webhooks/deliveries')).json();
      expect(all.deliveries).toHaveLength(4);
      expect(all).toMatchObject({ has_more: false, next_cursor: null });
      const byCase = (await call('GET', `/api/v1/webhooks/deliveries?case_id=${caseA}`)).json();
      expect(byCase.deliveries.map((d: { delivery_id: string }) => d.delivery_id).sort()).toEqual(delivered.slice(0, 2).sort());
      const failed = (await call('GET', '/api/v1/webhooks/deliveries?status=failed')).json();
      expect(failed.deliveries.map((d: { delivery_id: string }) => d.delivery_id)).toEqual([failedId]);
      expect(failed.deliveries[0]).toMatchObject({ status: 'failed', attempt_count: 5, max_attempts: 5, next_attempt_at: null, last_status_code: 500, endpoint_url: failing.url });
      const intake = (await call('GET', '/api/v1/webhooks/deliveries?event_type=v1.intake.submitted')).json();
      expect(intake.deliveries).toHaveLength(2);
      expect(intake.deliveries.every((d: { event_type: string }) => d.event_type === 'v1.intake.submitted')).toBe(true);
    });

    it('pages with limit and starting_after', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await call('GET', `/api/v1/webhooks/deliveries?limit=3${cursor ? `&starting_after=${cursor}` : ''}`);
        expect(res.statusCode).toBe(200);
        const page = res.json();
        seen.push(...page.deliveries.map((d: { delivery_id: string }) => d.delivery_id));
        cursor = page.next_cursor;
        expect(page.has_more).toBe(cursor !== null);
      } while (cursor);
      expect(seen).toHaveLength(4);
      expect(new Set(seen).size).toBe(4);
      const unpaged = (await call('GET', '/api/v1/webhooks/deliveries')).json();
      expect(seen).toEqual(unpaged.deliveries.map((d: { delivery_id: string }) => d.delivery_id));
    });

    it.each(['0', '101', 'ten', '-1', ''])('refuses limit=%s with invalid_limit', async (limit) => {
      const res = await call('GET', `/api/v1/webhooks/deliveries?limit=${limit}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_limit');
    });

    it('refuses an unknown status or cursor', async () => {
      expect((await call('GET', '/api/v1/webhooks/deliveries?status=lost')).json().error.code).toBe('invalid_request');
      expect((await call('GET', '/api/v1/webhooks/deliveries?starting_after=dlv_nope')).json().error.code).toBe('invalid_request');
    });

    it('shows one delivery with its attempts and envelope', async () => {
      const res = await call('GET', `/api/v1/webhooks/deliveries/${failedId}`);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.attempts).toHaveLength(5);
      expect(body.attempts[0]).toMatchObject({ attempt_number: 1, status_code: 500, error: 'HTTP 500', response_excerpt: 'boom' });
      expect(typeof body.attempts[0].duration_ms).toBe('number');
      expect(body.envelope).toMatchObject({ delivery_id: failedId, event_type: 'v1.session.expired', schema_version: 'v1' });
    });

    it('hides other workspaces and environments', async () => {
      const other = await t.workspace();
      expect((await call('GET', `/api/v1/webhooks/deliveries/${failedId}`, { key: other.key })).statusCode).toBe(404);
      expect((await call('GET', '/api/v1/webhooks/deliveries', { key: other.key })).json().deliveries).toEqual([]);
      const live = await t.createKey(ws.orgId, { environment: 'live' });
      expect((await call('GET', `/api/v1/webhooks/deliveries/${failedId}`, { key: live.key })).statusCode).toBe(404);
      expect((await call('POST', `/api/v1/webhooks/deliveries/${failedId}/retry`, { key: other.key })).statusCode).toBe(404);
    });

    it('retries a failed delivery with a fresh budget, and refuses any other', async () => {
      const refused = await call('POST', `/api/v1/webhooks/deliveries/${delivered[0]}/retry`);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error).toMatchObject({ code: 'invalid_request' });
      expect(refused.json().error.message).toMatch(/delivered/);

      failing.respond(() => ({ status: 200 }));
      const res = await call('POST', `/api/v1/webhooks/deliveries/${failedId}/retry`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'pending', attempt_count: 0, failed_at: null });
      await until(async () => (await deliveryRow(t.ctx, failedId)).status === 'delivered');
      const detail = (await call('GET', `/api/v1/webhooks/deliveries/${failedId}`)).json();
      expect(detail.attempts.map((a: { attempt_number: number }) => a.attempt_number)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(detail).toMatchObject({ status: 'delivered', attempt_count: 1 });
      failing.respond(() => ({ status: 500, body: 'boom' }));
    });

    it('lists integration notifications', async () => {
      const res = await call('GET', '/api/v1/notifications');
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.notifications).toHaveLength(1);
      expect(body.notifications[0]).toMatchObject({ kind: 'webhook_delivery_failed', data: { delivery_id: failedId } });
      const key = await t.createKey(ws.orgId, { scopes: ['webhooks:test'] });
      expect((await call('GET', '/api/v1/notifications', { key: key.key })).statusCode).toBe(403);
    });
  });

  describe('POST /api/v1/webhooks/deliveries/{id}/ack', () => {
    beforeAll(async () => {
      ws = await t.workspace();
      await addEndpoint(t.ctx, ws.orgId, ok.url, ['v1.case.completed', 'v1.intake.submitted']);
    });

    it('acknowledges a delivered handoff once, then says already_acknowledged', async () => {
      const { caseId, deliveryId } = await deliveredHandoff();
      await until(async () => (await caseHandoff(t.ctx, caseId)).handoff_state === 'delivered');
      const first = await call('POST', `/api/v1/webhooks/deliveries/${deliveryId}/ack`);
      expect(first.statusCode).toBe(200);
      expect(first.json()).toEqual({ acknowledged: true, already_acknowledged: false, delivery_id: deliveryId, case_id: caseId, handoff_state: 'acknowledged' });
      const handoff = await caseHandoff(t.ctx, caseId);
      expect(handoff.handoff_state).toBe('acknowledged');
      expect(handoff.handoff_acknowledged_at).not.toBeNull();
      const events = await t.ctx.db.selectFrom('case_events').select(['event_type', 'data']).where('case_id', '=', caseId).execute();
      expect(events).toEqual([{ event_type: 'handoff.acknowledged', data: { delivery_id: deliveryId, acknowledgement_id: null } }]);

      const again = await call('POST', `/api/v1/webhooks/deliveries/${deliveryId}/ack`, { body: {} });
      expect(again.json()).toMatchObject({ acknowledged: true, already_acknowledged: true, handoff_state: 'acknowledged' });
      expect(await t.ctx.db.selectFrom('case_events').select('event_id').where('case_id', '=', caseId).execute()).toHaveLength(1);
    });

    it('takes acknowledgement_id, or the Idempotency-Key header, and replays a repeat', async () => {
      const { deliveryId } = await deliveredHandoff();
      const first = await call('POST', `/api/v1/webhooks/deliveries/${deliveryId}/ack`, { body: { acknowledgement_id: 'crm-1' } });
      expect(first.json()).toMatchObject({ already_acknowledged: false });
      expect((await deliveryRow(t.ctx, deliveryId)).acknowledgement_id).toBe('crm-1');
      const replay = await call('POST', `/api/v1/webhooks/deliveries/${deliveryId}/ack`, { headers: { 'idempotency-key': 'crm-1' } });
      expect(replay.statusCode).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.json()).toMatchObject({ already_acknowledged: true, idempotent_replay: true, delivery_id: deliveryId });

      const { deliveryId: other } = await deliveredHandoff();
      const conflict = await call('POST', `/api/v1/webhooks/deliveries/${other}/ack`, { body: { acknowledgement_id: 'crm-1' } });
      expect(conflict.statusCode).toBe(400);
      expect(conflict.json().error.code).toBe('idempotency_key_conflict');
      // The refused request stored nothing: the handoff is still open.
      expect((await deliveryRow(t.ctx, other)).acknowledged_at).toBeNull();
    });

    it('refuses a delivery that has not been delivered', async () => {
      const w = await t.workspace();
      await addEndpoint(t.ctx, w.orgId, failing.url, ['v1.case.completed']);
      const key = (await t.createKey(w.orgId)).key;
      const { deliveryId, caseId } = await deliveredHandoff(failing, 'failed', w);
      const res = await call('POST', `/api/v1/webhooks/deliveries/${deliveryId}/ack`, { key, body: { acknowledgement_id: 'x-1' } });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ type: 'validation_error', code: 'webhook_delivery_not_delivered' });
      expect((await caseHandoff(t.ctx, caseId)).handoff_state).toBe('dispatch_failed');
      // Nothing was stored under the key: it works once the delivery is delivered.
      const pending = await call('POST', `/api/v1/webhooks/deliveries/${deliveryId}/ack`, { key, body: { acknowledgement_id: 'x-1' } });
      expect(pending.json().error.code).toBe('webhook_delivery_not_delivered');
    });

    it.each([
      ['[]', 'invalid_acknowledgement_payload'],
      ['"crm-1"', 'invalid_acknowledgement_payload'],
      ['null', 'invalid_acknowledgement_payload'],
      ['42', 'invalid_acknowledgement_payload'],
      ['{"acknowledgement_id":""}', 'invalid_acknowledgement_payload'],
      ['{"acknowledgement_id":42}', 'invalid_acknowledgement_payload'],
      [`{"acknowledgement_id":"${'a'.repeat(256)}"}`, 'invalid_acknowledgement_payload'],
      ['{"acknowledgement_id":"ok","junk":true}', 'invalid_acknowledgement_payload'],
      ['{not json', 'invalid_json'],
    ])('refuses the body %s with %s', async (payload, code) => {
      const { deliveryId } = await deliveredHandoff();
      const res = await call('POST', `/api/v1/webhooks/deliveries/${deliveryId}/ack`, { payload });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe(code);
      expect((await deliveryRow(t.ctx, deliveryId)).acknowledged_at).toBeNull();
    });

    it('refuses an over-long Idempotency-Key', async () => {
      const { deliveryId } = await deliveredHandoff();
      const res = await call('POST', `/api/v1/webhooks/deliveries/${deliveryId}/ack`, { headers: { 'idempotency-key': 'k'.repeat(256) } });
      expect(res.json().error.code).toBe('invalid_acknowledgement_payload');
    });

    it('is not_found for unknown deliveries and other workspaces', async () => {
      expect((await call('POST', '/api/v1/webhooks/deliveries/dlv_unknown/ack')).json().error.code).toBe('not_found');
      const { deliveryId } = await deliveredHandoff();
      const other = await t.workspace();
      const res = await call('POST', `/api/v1/webhooks/deliveries/${deliveryId}/ack`, { key: other.key });
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    });

    it('refuses a delivery that carries no handoff', async () => {
      const caseId = await insertCase(t.ctx, ws.orgId);
      const [id] = await enqueue(t.ctx, caseEvent(ws.orgId, caseId, { eventType: 'v1.intake.submitted' }));
      await until(async () => (await deliveryRow(t.ctx, id!)).status === 'delivered');
      const res = await call('POST', `/api/v1/webhooks/deliveries/${id}/ack`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    });

    it('needs the webhooks:acknowledge scope', async () => {
      const key = await t.createKey(ws.orgId, { scopes: ['webhooks:read'] });
      expect((await call('POST', '/api/v1/webhooks/deliveries/dlv_x/ack', { key: key.key })).statusCode).toBe(403);
    });
  });
});

describeEachBackend('webhook test send with the default network policy', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let receiver: Receiver;

  beforeAll(async () => {
    t = await createTestApp(backend);
    ws = await t.workspace();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it.each(['https://127.0.0.1:PORT/hooks', 'https://127.1.2.3:PORT/hooks', 'https://localhost:PORT/hooks', 'https://[::1]:PORT/hooks',
    'https://[::ffff:127.0.0.1]:PORT/hooks', 'https://0.0.0.0:PORT/hooks', 'http://127.0.0.1:PORT/hooks'])(
    'refuses %s as invalid_endpoint_url and sends nothing',
    async (template) => {
      const url = template.replace('PORT', new URL(receiver.url).port);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/test',
        headers: { authorization: `Bearer ${ws.key}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ endpoint_url: url, signing_secret: SECRET }),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_endpoint_url');
      expect(receiver.requests).toHaveLength(0);
    },
  );
});

describeEachBackend('webhook test send with SELF_SERVE_WEBHOOKS=false', (backend) => {
  it('answers 428 self_serve_webhooks_disabled after validating the body', async () => {
    const t = await createTestApp(backend, { env: { SELF_SERVE_WEBHOOKS: 'false', ...PRIVATE_NETWORK_ENV } });
    try {
      const ws = await t.workspace();
      const send = (body: unknown) =>
        t.app.inject({ method: 'POST', url: '/api/v1/webhooks/test', headers: { authorization: `Bearer ${ws.key}` }, payload: body as object });
      expect((await send({ signing_secret: SECRET })).json().error.code).toBe('missing_endpoint_url');
      const res = await send({ endpoint_url: 'https://hooks.example.com/x', signing_secret: SECRET });
      expect(res.statusCode).toBe(428);
      expect(res.json().error).toMatchObject({ type: 'precondition_error', code: 'self_serve_webhooks_disabled' });
    } finally {
      await t.close();
    }
  });
});
