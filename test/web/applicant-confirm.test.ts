import { afterAll, beforeAll, expect, it } from 'vitest';
import { submitIntake } from '../../src/domain/intake/submit-intake.ts';
import { readConsoleCase } from '../../src/domain/console/case-view.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { ApplicantAgent } from '../support/applicant.ts';
import { addProcessedDocument, drainCaseJobs, readCase } from '../engine/engine-fixtures.ts';

/**
 * Issue 26, item 3: after the pay stub is read, "We read these from your pay stub" asks "Is this
 * right?" for each value gates depend on. A change is the applicant's correction: the original
 * value and evidence are kept, the event says `actor: applicant`, and the case goes to review with
 * `applicant_corrected_fact` instead of passing its gates on the applicant's word.
 */
describeEachBackend('applicant app: the applicant confirms what we read', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  beforeAll(async () => {
    t = await createTestApp(backend);
    ws = await t.workspace({ name: 'Acme Lending' });
    await withExampleCaseTypes(t, ws.orgId);
  });
  afterAll(() => t.close());

  const daysAgo = (n: number) => new Date(t.clock.now().getTime() - n * 86_400_000).toISOString().slice(0, 10);

  async function uploadedAndRead() {
    const s = await newSession(t, ws, 'income_verification');
    const agent = new ApplicantAgent(t);
    await agent.open(s.signed_url);
    const base = `/app/s/${s.session_id}`;
    expect((await agent.post(`${base}/form/applicant`, { full_name: 'Jane Doe', email: 'jane@example.com', 'date_of_birth-day': '7', 'date_of_birth-month': '3', 'date_of_birth-year': '1990' })).statusCode).toBe(303);
    await addProcessedDocument(t, s.case_id, 'pay_stub', { employee_name: 'Jane Doe', employer_name: 'Acme', pay_date: daysAgo(5), gross_pay: '2150.00' });
    return { s, agent, base };
  }

  it('goes from the upload step to the confirm page, which lists the values gates depend on', async () => {
    const { agent, base } = await uploadedAndRead();
    const next = await agent.post(`${base}/upload/documents`, {});
    expect(next.statusCode).toBe(303);
    expect(next.headers.location).toBe(`${base}/confirm/documents`);
    const page = await agent.get(`${base}/confirm/documents`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('We read these from your pay stub');
    expect(page.body).toContain('2,150.00');
    expect(page.body).toContain('Is this right?');
    // Employer is optional and no gate reads it: not worth the applicant's time.
    expect(page.body).not.toContain('data-read-value="employer_name"');
    for (const id of ['employee_name', 'pay_date', 'gross_pay']) expect(page.body).toContain(`data-read-value="${id}"`);
  });

  it('shows an amount with the currency its quote gave it: a code in the locale\'s way, a bare "$" as written', async () => {
    for (const [quote, shown] of [['$2,150.00', '$2,150.00'], ['GBP 2,150.00', '£2,150.00']] as const) {
      const { s, agent, base } = await uploadedAndRead();
      const fact = await t.ctx.db.selectFrom('facts').select('evidence').where('case_id', '=', s.case_id).where('fact_id', '=', 'gross_pay').executeTakeFirstOrThrow();
      const evidence = (fact.evidence as Array<Record<string, unknown>>).map((e) => ({ ...e, quote }));
      await t.ctx.db.updateTable('facts').set({ evidence: JSON.stringify(evidence) as never }).where('case_id', '=', s.case_id).where('fact_id', '=', 'gross_pay').execute();
      await agent.post(`${base}/upload/documents`, {});
      const page = await agent.get(`${base}/confirm/documents`);
      expect(page.body).toContain(shown);
    }
  });

  it('says so while reading is slow, and lets the applicant carry on', async () => {
    const s = await newSession(t, ws, 'income_verification');
    const agent = new ApplicantAgent(t);
    await agent.open(s.signed_url);
    const now = t.clock.now();
    await t.ctx.db.insertInto('documents').values({
      doc_id: t.ctx.ids.next('doc'), case_id: s.case_id, org_id: ws.orgId, environment: 'test', document_kind: 'pay_stub', filename: 'slow.pdf',
      source: 'upload', source_url: null, status: 'processing', failure_reason: null, mime_type: 'application/pdf', byte_size: 10,
      sha256: null, page_count: null, created_at: now, updated_at: now, erased_at: null,
    }).execute();
    const page = await agent.get(`/app/s/${s.session_id}/confirm/documents`);
    expect(page.body).toContain('We are still reading your documents');
    expect(page.body).toContain('Continue without waiting');
  });

  it('yes to everything changes nothing; no without a choice is an error', async () => {
    const { s, agent, base } = await uploadedAndRead();
    const url = `${base}/confirm/documents`;
    const missing = await agent.post(url, {});
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('Select yes if the gross pay is right, or no to change it');
    const yes = await agent.post(url, { 'confirm-employee_name': 'yes', 'confirm-pay_date': 'yes', 'confirm-gross_pay': 'yes' });
    expect(yes.statusCode).toBe(303);
    expect(yes.headers.location).toBe(`${base}/check`);
    const corrections = await t.ctx.db.selectFrom('fact_corrections').selectAll().where('case_id', '=', s.case_id).execute();
    expect(corrections).toEqual([]);
  });

  it('a change is the applicant’s correction: kept with the original, shown to the operator, and the case goes to review', async () => {
    const { s, agent, base } = await uploadedAndRead();
    const url = `${base}/confirm/documents`;
    const bad = await agent.post(url, { 'confirm-employee_name': 'yes', 'confirm-pay_date': 'yes', 'confirm-gross_pay': 'no', gross_pay: 'lots' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Gross pay must be an amount of money');
    const changed = await agent.post(url, { 'confirm-employee_name': 'yes', 'confirm-pay_date': 'yes', 'confirm-gross_pay': 'no', gross_pay: '2510' });
    expect(changed.statusCode).toBe(303);

    const fact = await t.ctx.db.selectFrom('facts').selectAll().where('case_id', '=', s.case_id).where('fact_id', '=', 'gross_pay').executeTakeFirstOrThrow();
    expect(fact).toMatchObject({ value: '2510.00', status: 'resolved', corrected_by: 'applicant' });
    // The evidence stays: it shows what was read, for the operator to compare.
    expect((fact.evidence as unknown[]).length).toBe(1);
    const correction = await t.ctx.db.selectFrom('fact_corrections').selectAll().where('case_id', '=', s.case_id).executeTakeFirstOrThrow();
    expect(correction).toMatchObject({ fact_id: 'gross_pay', previous_value: '2150.00', previous_source: 'document_extraction', new_value: '2510.00', actor: 'applicant' });
    const event = await t.ctx.db.selectFrom('case_events').select('data').where('case_id', '=', s.case_id).where('event_type', '=', 'fact.corrected').executeTakeFirstOrThrow();
    expect(event.data).toMatchObject({ fact_id: 'gross_pay', actor: 'applicant' });

    expect((await submitIntake(t.ctx, { sessionId: s.session_id, token: s.token, traceId: 't' })).ok).toBe(true);
    await drainCaseJobs(t);
    const c = await readCase(t, ws, s.case_id);
    expect(c.runtime_status).toBe('ready_for_review');
    expect(c.queue_row).toMatchObject({ why_here_code: 'applicant_corrected_fact', queue_category: 'review' });
    expect(c.workspace.facts.find((f: { fact_id: string }) => f.fact_id === 'gross_pay')).toMatchObject({ value: '2510.00', corrected_by: 'applicant' });

    const consoleCase = await readConsoleCase(t.ctx, { tenant: { orgId: ws.orgId, environment: 'test' }, caseId: s.case_id, selection: {} });
    expect(consoleCase.ok && consoleCase.value.corrections.gross_pay?.[0]).toMatchObject({ actor: 'applicant', previousValue: '2150.00', newValue: '2510.00' });
  });
});
