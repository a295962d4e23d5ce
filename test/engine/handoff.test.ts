import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.ts';
import { createTestApp, describeEachBackend, until, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { withExampleCaseTypes } from '../support/fixtures.ts';
import { addEndpoint, startDeliveries, startReceiver, verifySignatures, PRIVATE_NETWORK_ENV, type Receiver, type RunningDeliveries } from '../webhooks/fixtures.ts';
import { addProcessedDocument, answerAndSubmit, drainCaseJobs, newSession, readCase } from './engine-fixtures.ts';

describeEachBackend('handoff from the case engine to the customer', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let receiver: Receiver;
  let deliveries: RunningDeliveries;
  let secret: string;

  beforeAll(async () => {
    t = await createTestApp(backend, { clock: new ManualClock(new Date()), env: PRIVATE_NETWORK_ENV });
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
    receiver = await startReceiver();
    secret = (await addEndpoint(t.ctx, ws.orgId, receiver.url, ['*'])).signing_secret;
    deliveries = startDeliveries(t.ctx, backend);
  });
  afterAll(async () => {
    await deliveries.stop();
    await receiver.close();
    await t.close();
  });

  it('sends signed intake.submitted, ready_for_review and case.completed webhooks, then takes the acknowledgement', async () => {
    const today = t.clock.now().toISOString().slice(0, 10);
    const s = await newSession(t, ws, 'income_verification', { external_case_id: 'loan-77' });
    await addProcessedDocument(t, s.case_id, 'pay_stub', { employee_name: 'Jane Doe', pay_date: today, gross_pay: '2500.00' });
    await answerAndSubmit(t, s, { full_name: 'Jane Doe', email: 'j@example.com', date_of_birth: '1990-01-01' });
    await drainCaseJobs(t);
    const decided = await t.app.inject({ method: 'POST', url: `/api/v1/cases/${s.case_id}/decision`, headers: { authorization: `Bearer ${ws.key}` }, payload: { decision: 'approve' } });
    expect(decided.json().handoff).toMatchObject({ handoff_state: 'dispatching', delivery_id: expect.stringMatching(/^dlv_/) });

    const received = await until(() => {
      const types = receiver.requests.map((r) => JSON.parse(r.rawBody).event_type);
      return types.includes('v1.case.completed') && types.includes('v1.intake.submitted') && types.includes('v1.case.ready_for_review') ? receiver.requests : undefined;
    });
    for (const request of received) verifySignatures(request, secret);
    const completed = received.map((r) => JSON.parse(r.rawBody)).find((e) => e.event_type === 'v1.case.completed');
    expect(completed).toMatchObject({
      semantic_event_type: 'case.completed',
      schema_version: 'v1',
      org_id: ws.orgId,
      case_id: s.case_id,
      external_case_id: 'loan-77',
      data: { case_status: 'approved' },
      delivery_id: decided.json().handoff.delivery_id,
    });

    await until(async () => (await readCase(t, ws, s.case_id)).handoff?.handoff_state === 'delivered');
    const record = await readCase(t, ws, s.case_id);
    expect(record.workspace.next_action).toMatchObject({ actor: 'customer', action: 'acknowledge_handoff', delivery_id: completed.delivery_id });

    const ack = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/deliveries/${completed.delivery_id}/ack`,
      headers: { authorization: `Bearer ${ws.key}` },
      payload: { acknowledgement_id: 'ack-loan-77' },
    });
    expect(ack.statusCode).toBe(200);
    expect(ack.json()).toMatchObject({ acknowledged: true, already_acknowledged: false, delivery_id: completed.delivery_id, case_id: s.case_id, handoff_state: 'acknowledged' });
    const after = await readCase(t, ws, s.case_id);
    expect(after.handoff).toMatchObject({ handoff_state: 'acknowledged', acknowledged_at: expect.any(String) });
    expect(after.workspace.next_action).toBeNull();
  });

  it('refuses new sessions while an endpoint is enabled and SELF_SERVE_WEBHOOKS=false', async () => {
    const locked = await createTestApp(backend, { env: { ...PRIVATE_NETWORK_ENV, SELF_SERVE_WEBHOOKS: 'false' } });
    try {
      const org = await locked.workspace();
      await withExampleCaseTypes(locked, org.orgId);
      const post = () =>
        locked.app.inject({ method: 'POST', url: '/api/v1/sessions', headers: { authorization: `Bearer ${org.key}`, 'idempotency-key': `k-${Math.random()}` }, payload: { case_type_id: 'income_verification' } });
      expect((await post()).statusCode).toBe(201);
      await addEndpoint(locked.ctx, org.orgId, receiver.url, ['*']);
      const refused = await post();
      expect(refused.statusCode).toBe(428);
      expect(refused.json().error.code).toBe('self_serve_webhooks_disabled');
    } finally {
      await locked.close();
    }
  });
});
