import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeDemo } from '../../src/cli/commands/demo.ts';
import { createTestApp, describeEachBackend, type TestApp } from '../support/harness.ts';
import { drainCaseJobs } from '../engine/engine-fixtures.ts';
import { signInOperator } from '../support/web.ts';

// Issue 11 "Done when": `dossier demo` leaves a case in the review queue whose facts were read
// from a real document, each with a box to highlight, and prints where to review it.
describeEachBackend('dossier demo: the demo case', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(backend);
  });
  afterAll(() => t.close());

  it('makes one case, read from its pay stub by the worker, waiting in the review queue with evidence boxes', async () => {
    const first = await describeDemo(t.ctx);
    expect(first.demo_case_id).toMatch(/^case_/);
    expect(first.dashboard.case_url).toBe(`${t.ctx.config.baseUrl}/dashboard/cases/${String(first.demo_case_id)}`);
    await drainCaseJobs(t);

    const again = await describeDemo(t.ctx);
    expect(again.demo_case_id).toBe(first.demo_case_id);
    expect(again.dashboard.case_url).toBe(first.dashboard.case_url);
    expect(await t.ctx.db.selectFrom('cases').select('case_id').where('org_id', '=', first.org_id).where('external_case_id', '=', 'DEMO-LOAN-0001').execute()).toHaveLength(1);

    const caseRow = await t.ctx.db.selectFrom('cases').selectAll().where('case_id', '=', String(first.demo_case_id)).executeTakeFirstOrThrow();
    expect(caseRow.runtime_status).toBe('ready_for_review');
    const docs = await t.ctx.db.selectFrom('documents').selectAll().where('case_id', '=', caseRow.case_id).execute();
    expect(docs).toEqual([expect.objectContaining({ status: 'processed', document_kind: 'pay_stub', mime_type: 'application/pdf' })]);

    const facts = await t.ctx.db.selectFrom('facts').selectAll().where('case_id', '=', caseRow.case_id).orderBy('fact_id').execute();
    const byId = Object.fromEntries(facts.map((f) => [f.fact_id, f]));
    expect(byId.employee_name).toMatchObject({ value: 'Jane Doe', source: 'document_extraction' });
    expect(byId.employer_name).toMatchObject({ value: 'Northwind Logistics LLC', source: 'document_extraction' });
    expect(byId.gross_pay?.source).toBe('document_extraction');
    expect(byId.pay_date?.source).toBe('document_extraction');
    for (const fact of facts) {
      const evidence = fact.evidence as { doc_id: string; page_index: number; source: unknown }[];
      expect(evidence.length, fact.fact_id).toBeGreaterThan(0);
      expect(evidence[0], fact.fact_id).toMatchObject({ doc_id: docs[0]!.doc_id, page_index: 0, source: { kind: 'box', page_index: 0 } });
    }

    // The document job drew the evidence page before anyone opened the case (issue 11 speed).
    const drawn = await t.ctx.db.selectFrom('document_page_images').select(['page_index', 'content_type', 'page_width']).where('doc_id', '=', docs[0]!.doc_id).execute();
    expect(drawn).toEqual([{ page_index: 0, content_type: 'image/jpeg', page_width: 612 }]);

    // The demo operator finds it in the queue's review tab, and its page shows the facts and the page image.
    const password = first.dashboard.password;
    expect(password).toBeTruthy();
    const { cookie } = await signInOperator(t, first.dashboard.email, String(password));
    const queue = await t.app.inject({ method: 'GET', url: '/dashboard/cases?category=review', headers: { cookie } });
    expect(queue.statusCode).toBe(200);
    expect(queue.body).toContain(`/dashboard/cases/${caseRow.case_id}`);
    expect(queue.body).toContain('DEMO-LOAN-0001');
    const page = await t.app.inject({ method: 'GET', url: `/dashboard/cases/${caseRow.case_id}`, headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Northwind Logistics LLC');
    expect(page.body).toContain('data-evidence-box');
    expect(page.body).toContain('<mark class="quote" id="quote">Jane Doe</mark>');
    const image = await t.app.inject({ method: 'GET', url: `/dashboard/cases/${caseRow.case_id}/documents/${docs[0]!.doc_id}/pages/1`, headers: { cookie } });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toMatch(/^image\//);
  }, 120_000);
});
