import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { ApplicantAgent } from '../support/applicant.ts';
import { cookieHeader, csrfOf, form, FORM } from '../support/web.ts';
import { drainCaseJobs, eventTypes, readCase } from '../engine/engine-fixtures.ts';

/**
 * "Use a sample document" on the applicant app's upload step (test sessions): each outcome, from
 * the button to the case state, with the real extraction reading the sample.
 */
describeEachBackend('applicant app: sample documents on the upload step', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  const SLOW_MS = 1500;

  beforeAll(async () => {
    t = await createTestApp(backend, { env: { SIMULATED_SLOW_READ_MS: String(SLOW_MS) } });
    ws = await t.workspace({ name: 'Acme Lending', billing: 'active' });
    await withExampleCaseTypes(t, ws.orgId);
  }, 60_000);
  afterAll(() => t?.close());

  async function started(caseType = 'income_verification', workspace = ws) {
    const s = await newSession(t, workspace, caseType);
    const agent = new ApplicantAgent(t);
    await agent.open(s.signed_url);
    return { s, agent, base: `/app/s/${s.session_id}` };
  }

  async function fillAboutYou(agent: ApplicantAgent, base: string, name = 'Jane Doe') {
    const res = await agent.post(`${base}/form/applicant`, { full_name: name, email: 'jane@example.com', 'date_of_birth-day': '7', 'date_of_birth-month': '3', 'date_of_birth-year': '1990' });
    expect(res.statusCode).toBe(303);
  }

  /** Chooses an outcome and presses "Use a sample document", as the page's plain form posts it. */
  async function useSample(agent: ApplicantAgent, base: string, outcome: string) {
    const page = `${base}/upload/documents`;
    const shown = await agent.get(page);
    const res = await agent.post(`${page}/sample`, { kind: 'pay_stub', outcome }, csrfOf(shown.body));
    expect(res.statusCode, res.body).toBe(303);
    const location = String(res.headers.location);
    expect(location).toMatch(new RegExp(`^${page}\\?added=doc_`));
    const docId = new URL(location, 'http://x').searchParams.get('added')!;
    const after = await agent.get(location);
    expect(after.body).toContain(`sample-pay-stub-${outcome.replaceAll('_', '-')}.pdf has been uploaded.`);
    return { docId, page };
  }

  const submit = async (agent: ApplicantAgent, base: string) => agent.post(`${base}/submit`, {}, csrfOf((await agent.get(`${base}/check`)).body));

  const factsOf = (record: { workspace: { facts: Array<{ fact_id: string; status: string; value: string | null; evidence: unknown[]; reason_codes: string[] }> } }) =>
    Object.fromEntries(record.workspace.facts.map((f) => [f.fact_id, f])) as Record<string, { status: string; value: string | null; evidence: unknown[]; reason_codes: string[] }>;

  it('offers the sample form on a test session\'s upload step: a plain POST form with the CSRF token, one option per outcome', async () => {
    const { agent, base } = await started();
    const body = (await agent.get(`${base}/upload/documents`)).body;
    // Its own form, outside the page's upload form (forms do not nest); the controls point at it.
    expect(body).toContain(`<form id="sample-pay_stub-form" method="post" action="${base}/upload/documents/sample"></form>`);
    const controls = /<div class="sample-documents"[^>]*>([\s\S]*?)<\/button>\s*<\/div>/.exec(body)![1]!;
    expect(controls).toMatch(/<input type="hidden" name="_csrf" value="[^"]+" form="sample-pay_stub-form"/);
    expect(controls).toMatch(/<input type="hidden" name="kind" value="pay_stub" form="sample-pay_stub-form"/);
    expect(controls).toMatch(/<label class="label" for="sample-pay_stub">Or use a sample document \(test mode only\)<\/label>/);
    expect(controls).toMatch(/<select class="select" id="sample-pay_stub" name="outcome" form="sample-pay_stub-form"/);
    expect([...controls.matchAll(/<option value="([a-z_]+)"/g)].map((m) => m[1])).toEqual(['all_facts', 'missing_fact', 'gate_mismatch', 'unreadable', 'slow']);
    expect(controls).toMatch(/<button class="button button--secondary" type="submit" form="sample-pay_stub-form">Use a sample document$/);
  });

  it('all_facts: the sample is read, every fact found with evidence, the name matches, and the case reaches review', async () => {
    const { s, agent, base } = await started();
    await fillAboutYou(agent, base);
    const { docId } = await useSample(agent, base, 'all_facts');
    await drainCaseJobs(t);
    const stored = await t.ctx.db.selectFrom('documents').select(['source', 'source_url', 'status', 'mime_type']).where('doc_id', '=', docId).executeTakeFirstOrThrow();
    expect(stored).toEqual({ source: 'upload', source_url: 'dossier-test:income_verification/pay_stub/all_facts', status: 'processed', mime_type: 'application/pdf' });
    expect((await submit(agent, base)).headers.location).toBe(`${base}/status?sent=1`);
    await drainCaseJobs(t);
    const record = await readCase(t, ws, s.case_id);
    const facts = factsOf(record);
    expect(facts.employee_name).toMatchObject({ status: 'resolved', value: 'Jane Doe' });
    for (const id of ['employee_name', 'employer_name', 'pay_date', 'gross_pay']) expect(facts[id]!.evidence, id).toHaveLength(1);
    expect(record.runtime_status).toBe('ready_for_review');
    expect(record.queue_row.why_here_code).toBe('review_step_reached');
    expect((await agent.get(`${base}/status`)).body).toContain('Your answers have been sent');
  });

  it('missing_fact: the required fact is missing, so the applicant is asked a follow-up question', async () => {
    const { s, agent, base } = await started();
    await fillAboutYou(agent, base);
    await useSample(agent, base, 'missing_fact');
    await drainCaseJobs(t);
    await submit(agent, base);
    await drainCaseJobs(t);
    const record = await readCase(t, ws, s.case_id);
    expect(factsOf(record).employee_name!.status).toBe('needs_input');
    expect(record.runtime_status).toBe('intake_in_progress');
    expect(await eventTypes(t, s.case_id)).toContain('case.needs_input');
    expect((await agent.get(`${base}/status`)).headers.location).toBe(`${base}/follow-ups`);
    const questions = await agent.get(`${base}/follow-ups`);
    expect(questions.body).toContain('sample-pay-stub-missing-fact.pdf');
    expect(questions.body).toMatch(/<label class="label" for="employee_name">Employee name<\/label>/);
  });

  it('gate_mismatch: the name on the sample is not the one the applicant typed, so the name check fails', async () => {
    const { s, agent, base } = await started();
    await fillAboutYou(agent, base, 'Jane Doe');
    await useSample(agent, base, 'gate_mismatch');
    await drainCaseJobs(t);
    await submit(agent, base);
    await drainCaseJobs(t);
    const record = await readCase(t, ws, s.case_id);
    expect(factsOf(record).employee_name).toMatchObject({ status: 'resolved', value: 'Robert Miller', reason_codes: expect.arrayContaining(['input_mismatch']) });
    expect(record.runtime_status).toBe('ready_for_review');
    expect(record.queue_row.why_here_code).toBe('gate_failed');
  });

  it('unreadable: the scan fails with no_text_found and the page says what to do, offering a replacement', async () => {
    const { s, agent, base } = await started();
    await fillAboutYou(agent, base);
    const { docId, page } = await useSample(agent, base, 'unreadable');
    await drainCaseJobs(t);
    const stored = await t.ctx.db.selectFrom('documents').select(['status', 'failure_reason']).where('doc_id', '=', docId).executeTakeFirstOrThrow();
    expect(stored).toEqual({ status: 'failed', failure_reason: 'no_text_found' });
    expect(await eventTypes(t, s.case_id)).toContain('document.failed');
    const shown = (await agent.get(page)).body;
    expect(shown).toContain('Could not be read');
    expect(shown).toContain('We could not read the text in this file.');
    expect(shown).toContain(`name="replaces" value="${docId}"`);
    // A failed file does not count: the step still asks for a pay stub.
    const next = await agent.post(page, {});
    expect(next.statusCode).toBe(400);
    expect((await readCase(t, ws, s.case_id)).runtime_status).toBe('intake_in_progress');
  }, 60_000);

  it('slow: the sample stays processing for SIMULATED_SLOW_READ_MS, then is read', async () => {
    const { s, agent, base } = await started();
    await fillAboutYou(agent, base);
    const { docId } = await useSample(agent, base, 'slow');
    const started_ = performance.now();
    const draining = drainCaseJobs(t);
    expect((await readCase(t, ws, s.case_id)).runtime_status).toBe('processing');
    await draining;
    expect(performance.now() - started_).toBeGreaterThanOrEqual(SLOW_MS - 50);
    const stored = await t.ctx.db.selectFrom('documents').select('status').where('doc_id', '=', docId).executeTakeFirstOrThrow();
    expect(stored.status).toBe('processed');
  }, 30_000);

  it('a forged post (no CSRF token) is refused and uploads nothing', async () => {
    const { s, agent, base } = await started();
    const res = await t.app.inject({ method: 'POST', url: `${base}/upload/documents/sample`, headers: { ...FORM, cookie: cookieHeader(agent.cookies) }, payload: form({ kind: 'pay_stub', outcome: 'all_facts' }) });
    expect(res.statusCode).toBe(403);
    expect(await t.ctx.db.selectFrom('documents').select('doc_id').where('case_id', '=', s.case_id).execute()).toEqual([]);
  });

  it('a live session has no sample form, and its sample address is not found', async () => {
    const live = await t.createKey(ws.orgId, { environment: 'live' });
    const { s, agent, base } = await started('income_verification', { ...ws, key: live.key, keyId: live.key_id });
    const page = await agent.get(`${base}/upload/documents`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('sample-documents');
    expect(page.body).not.toContain('Use a sample document');
    const res = await agent.post(`${base}/upload/documents/sample`, { kind: 'pay_stub', outcome: 'all_facts' }, csrfOf(page.body));
    expect(res.statusCode).toBe(404);
    expect(await t.ctx.db.selectFrom('documents').select('doc_id').where('case_id', '=', s.case_id).execute()).toEqual([]);
  });
});
