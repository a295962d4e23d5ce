import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Dossier } from '@dossier/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemClock } from '../../src/ports/clock.ts';
import { startDocumentServer } from '../documents/document-server.ts';
import { answerAndSubmit, drainCaseJobs } from '../engine/engine-fixtures.ts';
import { withExampleCaseTypes } from '../support/fixtures.ts';
import { createTestApp, describeEachBackend, until, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { freePort, startReceiverExample, type RunningReceiver } from '../support/receiver-example.ts';
import { addEndpoint, PRIVATE_NETWORK_ENV, startDeliveries, type RunningDeliveries } from '../webhooks/fixtures.ts';


/** A recent utility bill in the words the address_proof case type anchors on. */
function utilityBill(statementDate: Date): string {
  const date = statementDate.toLocaleDateString('en-US', { month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
  return ['NORTHERN POWER & LIGHT', 'Electricity statement', 'Account holder: Jane Doe', 'Service address: 12 Oak Street, Springfield', `Statement date: ${date}`, 'Amount due: $84.20'].join('\n');
}

describeEachBackend('the reference receiver (examples/receiver) against the service', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let dossier: Dossier;
  let receiver: RunningReceiver;
  let deliveries: RunningDeliveries;
  let docs: Awaited<ReturnType<typeof startDocumentServer>>;
  let dir: string;
  let secret: string;
  let database: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dossier-receiver-'));
    database = join(dir, 'receiver.sqlite');
    docs = await startDocumentServer({ '/bill.txt': { body: utilityBill(new Date()), type: 'text/plain' } });
    t = await createTestApp(backend, { clock: systemClock, env: PRIVATE_NETWORK_ENV });
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const serviceUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    dossier = new Dossier({ apiKey: ws.key, baseUrl: serviceUrl });

    // As an integrator does it: register the endpoint, then start the receiver with its secret.
    const port = await freePort();
    const endpoint = await addEndpoint(t.ctx, ws.orgId, `http://127.0.0.1:${port}/webhooks/dossier`, ['*']);
    secret = endpoint.signing_secret;
    receiver = await startReceiverExample({
      DOSSIER_API_KEY: ws.key,
      DOSSIER_BASE_URL: serviceUrl,
      DOSSIER_WEBHOOK_SECRET: secret,
      RECEIVER_DB: database,
      RECEIVER_POLL_MS: '200',
      PORT: String(port),
      HOST: '127.0.0.1',
    });
    deliveries = startDeliveries(t.ctx, backend);
  }, 120_000);
  afterAll(async () => {
    await deliveries?.stop();
    await receiver?.stop();
    await t?.close();
    await docs?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('session → /process → completion → the receiver acknowledges → handoff_state acknowledged', async () => {
    const session = await dossier.sessions.create({ case_type_id: 'address_proof', external_case_id: `lease-${backend}` });
    const accepted = await dossier.process.create({ document_url: docs.url('/bill.txt'), case_id: session.case_id, document_kind: 'utility_bill' });
    expect(accepted).toMatchObject({ case_id: session.case_id, status: 'processing' });
    await drainCaseJobs(t);
    // The applicant submits in the hosted app (its signed link's token), and the gates run.
    const submitted = await answerAndSubmit(t, { session_id: session.session_id, token: new URL(session.signed_url).searchParams.get('token')! }, {});
    expect(submitted.ok).toBe(true);
    await drainCaseJobs(t);

    const completed = await dossier.cases.retrieve(session.case_id);
    expect(completed).toMatchObject({ runtime_status: 'complete', case_status: 'decision_ready' });

    const acknowledged = await until(async () => {
      const record = await dossier.cases.retrieve(session.case_id);
      return record.handoff?.handoff_state === 'acknowledged' ? record : undefined;
    }, 20_000);
    expect(acknowledged.handoff).toMatchObject({ handoff_state: 'acknowledged', acknowledged_at: expect.any(String) });
    // The receiver acknowledges first and stores the handoff after the answer: under load the service
    // reads acknowledged while the receiver's row is still pending, so wait for the receiver too.
    await until(() => receiverDeliveries(database).every((d) => d.status === 'handled'), 20_000);

    // What the receiver stored, read from its SQLite file.
    const db = new DatabaseSync(database, { readOnly: true });
    try {
      const seen = db.prepare('select event_type, status, case_id from deliveries where case_id = ? order by received_at').all(session.case_id) as { event_type: string; status: string }[];
      expect(seen.map((d) => d.event_type)).toEqual(expect.arrayContaining(['v1.intake.submitted', 'v1.case.completed']));
      expect(seen.every((d) => d.status === 'handled')).toBe(true);
      const handoff = db.prepare('select * from handoffs where case_id = ?').get(session.case_id) as Record<string, string>;
      expect(handoff).toMatchObject({ case_status: 'decision_ready', runtime_status: 'complete', handoff_state: 'acknowledged', delivery_id: acknowledged.handoff!.delivery_id });
      const pkg = JSON.parse(handoff.package!);
      expect(pkg.facts.holder_name).toMatchObject({ status: 'resolved', value: 'Jane Doe' });
      expect(pkg.documents).toHaveLength(1);
    } finally {
      db.close();
    }
    const delivery = await dossier.webhooks.deliveries.retrieve(acknowledged.handoff!.delivery_id!);
    expect(delivery).toMatchObject({ event_type: 'v1.case.completed', status: 'delivered', acknowledged_at: expect.any(String) });
  }, 60_000);

  it('answers 401 to a delivery whose signature does not verify, and stores nothing', async () => {
    const before = receiverDeliveries(database);
    const body = JSON.stringify({ event_id: 'evt_forged', delivery_id: 'dlv_forged', event_type: 'v1.case.completed', case_id: 'case_x', data: { case_status: 'approved' } });
    const t0 = Math.floor(Date.now() / 1000);
    const forged = `t=${t0},v1=${createHmac('sha256', 'whsec_not_the_secret').update(`${t0}.${body}`).digest('hex')}`;
    for (const headers of [{ 'x-service-signature': forged }, {}] as Record<string, string>[]) {
      const res = await fetch(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      expect(res.status).toBe(401);
    }
    expect(receiverDeliveries(database)).toEqual(before);
  });

  it('deduplicates by delivery_id: a repeated delivery is answered 2xx and not handled twice', async () => {
    const [completed] = (await dossier.webhooks.deliveries.list({ event_type: 'v1.case.completed', status: 'delivered' }).first()).deliveries;
    const { envelope } = await dossier.webhooks.deliveries.retrieve(completed!.delivery_id);
    const body = JSON.stringify(envelope);
    const now = Math.floor(Date.now() / 1000);
    const signature = `t=${now},v1=${createHmac('sha256', secret).update(`${now}.${body}`).digest('hex')}`;
    const before = receiverDeliveries(database);
    const res = await fetch(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': signature }, body });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true, duplicate: true });
    expect(receiverDeliveries(database)).toEqual(before);
    expect(receiver.output().match(/"handoff acknowledged"/g)).toHaveLength(1);
  });
});

function receiverDeliveries(database: string) {
  const db = new DatabaseSync(database, { readOnly: true });
  try {
    return db.prepare('select delivery_id, status, attempts from deliveries order by delivery_id').all() as { delivery_id: string; status: string; attempts: number }[];
  } finally {
    db.close();
  }
}
