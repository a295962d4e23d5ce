import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { putCaseType } from '../../src/domain/case-types/case-types.ts';
import { connectorCallTask } from '../../src/jobs/connector-calls.ts';
import { JOB_SOURCES } from '../../src/metrics/collectors.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { systemClock } from '../../src/ports/clock.ts';
import { addProcessedDocument, answerAndSubmit, drainCaseJobs, newSession } from '../engine/engine-fixtures.ts';
import { incomeVerification } from '../support/fixtures.ts';
import { createTestApp, describeEachBackend, itOnPostgres, until, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { startCustomerServer, type CustomerServer } from './customer-server.ts';
import { caller, loanManifest, PRIVATE_NETWORK_ENV } from './support.ts';

const TOKEN = 'los-token-7f3a9c2e5b1d';

/** income_verification with an action that creates the loan application once the case is approved. */
function caseTypeWithAction(extra: Record<string, unknown> = {}) {
  const def = structuredClone(incomeVerification) as { case_type_id: string; workflow: { nodes: Record<string, unknown>[] } };
  def.case_type_id = 'income_with_action';
  def.workflow.nodes.push({
    node_id: 'create_application',
    type: 'action',
    title: 'Create the loan application',
    connector_key: 'loan_origination',
    operation_id: 'createApplication',
    when: 'on_approved',
    inputs: {
      applicant_name: '{{facts.employee_name.value}}',
      monthly_income: '{{facts.gross_pay.value}}',
      reference: 'dossier:{{case.case_id}}/{{case.external_case_id}}',
      'applicant.email': '{{inputs.email}}',
      'X-Branch': 'LDN01',
    },
    store_response: { field: '/id', as: 'external_reference' },
    ...extra,
  });
  return def;
}

describeEachBackend('workflow action nodes', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let customer: CustomerServer;
  let worker: Worker;
  let call: ReturnType<typeof caller>;
  const logLines: string[] = [];
  const responses: string[] = [];

  const api: typeof call = async (...args) => {
    const res = await call(...args);
    responses.push(res.body);
    return res;
  };
  const readCase = async (caseId: string) => {
    const res = await api('GET', `/api/v1/cases/${caseId}`);
    if (res.statusCode !== 200) throw new Error(`${res.body}\n${logLines.filter((l) => l.includes(JSON.parse(res.body).error?.request_id ?? "-")).join("\n")}`);
    return res.json();
  };
  const events = async (caseId: string) =>
    (await api('GET', `/api/v1/cases/${caseId}/events?limit=500`)).json().events as { event_type: string; data: Record<string, unknown> }[];

  /** A case of the type, approved by an operator: the on_approved trigger fires. */
  async function approvedCase(externalCaseId: string): Promise<string> {
    const today = new Date().toISOString().slice(0, 10);
    const s = await newSession(t, ws, 'income_with_action', { external_case_id: externalCaseId });
    await addProcessedDocument(t, s.case_id, 'pay_stub', { employee_name: 'Jane Doe', pay_date: today, gross_pay: '2500.00', employer_name: 'Acme Ltd' });
    await answerAndSubmit(t, s, { full_name: 'Jane Doe', email: 'jane@example.com', date_of_birth: '1990-01-01' });
    await drainCaseJobs(t);
    const decided = await api('POST', `/api/v1/cases/${s.case_id}/decision`, { body: { decision: 'approve' } });
    expect(decided.statusCode, decided.body).toBe(200);
    return s.case_id;
  }

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    });
    t = await createTestApp(backend, {
      clock: systemClock,
      logger: pino({ level: 'debug' }, sink),
      env: { ...PRIVATE_NETWORK_ENV, CONNECTOR_RETRY_DELAYS: '0.05,0.05', CONNECTOR_TIMEOUT_MS: '2000' },
    });
    ws = await t.workspace();
    call = caller(t, () => ws);
    customer = await startCustomerServer();
    const created = await api('POST', '/api/v1/connectors', { body: loanManifest(customer.url) });
    expect(created.statusCode, created.body).toBe(201);
    const put = await putCaseType(t.ctx, { orgId: ws.orgId, environment: 'test', definition: caseTypeWithAction() });
    expect(put.ok ? 'ok' : JSON.stringify(put.problems)).toBe('ok');
    worker = new Worker(t.ctx, [connectorCallTask({ pollMs: 50 })]);
    worker.start();
  });
  afterAll(async () => {
    await worker.stop();
    await customer.close();
    await t.close();
  });

  it('calls the customer system on approval with the mapped facts and the idempotency header, and stores the answer', async () => {
    customer.requests.length = 0;
    const caseId = await approvedCase('loan-4711');
    await until(() => customer.requests.length === 1, 30_000);
    const request = customer.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/applications');
    expect(request.headers['idempotency-key']).toBe(`${caseId}:create_application`);
    expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request.headers['x-branch']).toBe('LDN01');
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body)).toEqual({
      applicant_name: 'Jane Doe',
      monthly_income: '2500.00',
      reference: `dossier:${caseId}/loan-4711`,
      applicant: { email: 'jane@example.com' },
    });
    const record = await until(async () => {
      const r = await readCase(caseId);
      return r.workspace.actions[0].status === 'succeeded' ? r : undefined;
    }, 30_000);
    expect(record.workspace.actions[0]).toMatchObject({
      node_id: 'create_application',
      connector_key: 'loan_origination',
      operation_id: 'createApplication',
      when: 'on_approved',
      attempt_count: 1,
      last_status_code: 201,
      external_reference: 'APP-1001',
    });
    expect(record.queue_row).toMatchObject({ queue_category: 'done', why_here_code: 'completed_approved' });
    const succeeded = (await events(caseId)).filter((e) => e.event_type === 'connector.call_succeeded');
    expect(succeeded).toHaveLength(1);
    expect(Object.keys(succeeded[0]!.data).sort()).toEqual(['attempt', 'connector_key', 'duration_ms', 'node_id', 'operation_id', 'status_code', 'stored_as']);
    expect(succeeded[0]!.data.status_code).toBe(201);
  });

  it('retries a 500 with the same idempotency key, and records each outcome without bodies', async () => {
    customer.requests.length = 0;
    customer.script.push(500);
    const caseId = await approvedCase('loan-4712');
    await until(async () => (await readCase(caseId)).workspace.actions[0].status === 'succeeded', 30_000);
    expect(customer.requests).toHaveLength(2);
    expect(customer.requests.map((r) => r.headers['idempotency-key'])).toEqual([`${caseId}:create_application`, `${caseId}:create_application`]);
    const outcomes = (await events(caseId)).filter((e) => e.event_type.startsWith('connector.'));
    expect(outcomes.map((e) => [e.event_type, e.data.status_code, e.data.final ?? null])).toEqual([
      ['connector.call_failed', 500, false],
      ['connector.call_succeeded', 201, null],
    ]);
    expect(JSON.stringify(outcomes)).not.toContain('customer-internal-detail');
  });

  it('a final failure puts the case in the exception queue; a retry from the API completes it', async () => {
    customer.requests.length = 0;
    customer.script.push(500, 503, 500);
    const caseId = await approvedCase('loan-4713');
    const failed = await until(async () => {
      const r = await readCase(caseId);
      return r.workspace.actions[0].status === 'failed' ? r : undefined;
    }, 30_000);
    expect(customer.requests).toHaveLength(3);
    expect(failed.workspace.actions[0]).toMatchObject({ attempt_count: 3, last_status_code: 500, last_error: 'HTTP 500' });
    expect(failed.queue_row).toMatchObject({ queue_category: 'exception', queue_status: 'ready', why_here_code: 'connector_call_failed' });
    expect(failed.workspace.operational_summary.primary_action).toMatchObject({ action: 'retry_action', path: `/api/v1/cases/${caseId}/actions/create_application/retry` });
    expect(failed.workspace.operational_summary.blocking_items[0]).toMatchObject({ kind: 'action', id: 'create_application', reason_codes: ['connector_call_failed'] });
    const queue = (await api('GET', '/api/v1/cases?queue_category=exception')).json();
    expect(JSON.stringify(queue)).toContain(caseId);
    const finals = (await events(caseId)).filter((e) => e.event_type === 'connector.call_failed' && e.data.final === true);
    expect(finals).toHaveLength(1);
    // The queue gauges (dossier_jobs{kind="connector_call"}) see the failed call.
    const summaries = (await Promise.all(JOB_SOURCES.map((source) => source.summarize(t.ctx.db, new Date())))).flat();
    expect(summaries.find((s) => s.kind === 'connector_call')?.counts.failed).toBe(1);

    const retried = await api('POST', `/api/v1/cases/${caseId}/actions/create_application/retry`);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json()).toMatchObject({ node_id: 'create_application', status: 'pending', attempt_count: 0 });
    const done = await until(async () => {
      const r = await readCase(caseId);
      return r.workspace.actions[0].status === 'succeeded' ? r : undefined;
    }, 30_000);
    expect(done.queue_row).toMatchObject({ queue_category: 'done', why_here_code: 'completed_approved' });
    expect(customer.requests).toHaveLength(4);
    expect(new Set(customer.requests.map((r) => r.headers['idempotency-key']))).toEqual(new Set([`${caseId}:create_application`]));

    const again = await api('POST', `/api/v1/cases/${caseId}/actions/create_application/retry`);
    expect(again.statusCode).toBe(400);
    expect(again.json().error.code).toBe('invalid_request');
    expect((await api('POST', `/api/v1/cases/${caseId}/actions/no_such_node/retry`)).statusCode).toBe(404);
  });

  it('the operation test endpoint calls one operation with sample inputs', async () => {
    customer.requests.length = 0;
    const res = await api('POST', '/api/v1/connectors/loan_origination/operations/getApplication/test', { body: { inputs: { application_id: 'APP 1/2' } } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ success: true, method: 'GET', status_code: 201, url: `${customer.url}/applications/APP%201%2F2` });
    expect(res.json().response_excerpt).toContain('APP-1001');
    expect(customer.requests[0]!.headers['idempotency-key']).toMatch(/^test:[0-9a-f-]{36}$/);
    expect(customer.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const missing = await api('POST', '/api/v1/connectors/loan_origination/operations/getApplication/test', { body: {} });
    expect(missing.json().error).toMatchObject({ code: 'invalid_request' });
    expect((await api('POST', '/api/v1/connectors/loan_origination/operations/nope/test', { body: {} })).statusCode).toBe(404);
    const down = await api('POST', '/api/v1/connectors', { body: loanManifest('http://127.0.0.1:1', { connector_key: 'down' }) });
    expect(down.statusCode).toBe(201);
    const unreachable = await api('POST', '/api/v1/connectors/down/operations/getApplication/test', { body: { inputs: { application_id: 'x' } } });
    expect(unreachable.json()).toMatchObject({ success: false, status_code: null });
  });

  it('case-type validation refuses unknown connectors, operations, references and inputs, each at its JSON path', async () => {
    const def = caseTypeWithAction();
    const nodes = def.workflow.nodes;
    nodes.push(
      { node_id: 'a2', type: 'action', title: 'Unknown connector', connector_key: 'no_such_connector', operation_id: 'x', when: 'on_submit', inputs: {} },
      { node_id: 'a3', type: 'action', title: 'Unknown operation', connector_key: 'loan_origination', operation_id: 'deleteEverything', when: 'on_complete', inputs: {} },
      { node_id: 'a4', type: 'action', title: 'Bad references', connector_key: 'loan_origination', operation_id: 'getApplication', when: 'on_rejected', inputs: { application_id: '{{facts.salary.value}}', nickname: '{{case.secret}}' } },
    );
    const put = await putCaseType(t.ctx, { orgId: ws.orgId, environment: 'test', definition: def });
    expect(put.ok).toBe(false);
    const problems = put.ok ? [] : put.problems.map((p) => `${p.path}: ${p.message}`);
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(/^\$\.workflow\.nodes\[7\]\.inputs\.application_id: unknown fact "salary"/), expect.stringMatching(/^\$\.workflow\.nodes\[7\]\.inputs\.nickname: unknown reference "\{\{case\.secret\}\}"/)]));
    // The definition is valid on its own once the references are fixed; then the connectors are checked.
    nodes[7]!.inputs = { application_id: '{{case.external_case_id}}', nickname: 'x' };
    const second = await putCaseType(t.ctx, { orgId: ws.orgId, environment: 'test', definition: def });
    const more = second.ok ? [] : second.problems.map((p) => `${p.path}: ${p.message}`);
    expect(more).toEqual([
      '$.workflow.nodes[5].connector_key: unknown connector "no_such_connector"',
      '$.workflow.nodes[6].operation_id: connector "loan_origination" has no operation "deleteEverything"',
      '$.workflow.nodes[7].inputs.nickname: operation "getApplication" has no parameter "nickname" and takes no request body',
    ]);
  });

  itOnPostgres(backend, 'never makes two calls of one action at once, with several workers racing for them', async () => {
    await worker.stop();
    customer.requests.length = 0;
    customer.maxInFlightPerKey = 0;
    customer.delayMs = 150;
    // Calls queue up while no worker runs; then four workers (four processes' worth) race for them.
    const caseIds = [];
    for (let i = 0; i < 4; i++) caseIds.push(await approvedCase(`loan-race-${i}`));
    const racers = Array.from({ length: 4 }, () => new Worker(t.ctx, [connectorCallTask({ pollMs: 20, maxInFlight: 2 })]));
    for (const r of racers) r.start();
    try {
      for (const caseId of caseIds) await until(async () => (await readCase(caseId)).workspace.actions[0].status === 'succeeded', 30_000);
    } finally {
      await Promise.all(racers.map((r) => r.stop()));
      customer.delayMs = 0;
      worker = new Worker(t.ctx, [connectorCallTask({ pollMs: 50 })]);
      worker.start();
    }
    expect(customer.requests.map((r) => r.headers['idempotency-key']).sort()).toEqual(caseIds.map((id) => `${id}:create_application`).sort());
    expect(customer.maxInFlightPerKey).toBe(1);
  }, 60_000);

  it('never shows the connector secret in a response or a log line', async () => {
    expect(responses.length).toBeGreaterThan(10);
    for (const body of responses) expect(body).not.toContain(TOKEN);
    expect(logLines.length).toBeGreaterThan(10);
    expect(logLines.some((l) => l.includes('connector call attempted'))).toBe(true);
    for (const line of logLines) {
      expect(line).not.toContain(TOKEN);
      expect(line).not.toContain(Buffer.from(TOKEN).toString('base64'));
    }
    const rows = await t.ctx.db.selectFrom('connectors').select('secret_box').execute();
    for (const row of rows) expect(String(row.secret_box)).not.toContain(TOKEN);
  });
});
