import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putCaseType } from '../../src/domain/case-types/case-types.ts';
import { parseCaseTypeDefinition } from '../../src/domain/case-types/definition.ts';
import { availableOutcomes, planSampleDocument } from '../../src/domain/samples/sample-plan.ts';
import { parseSampleDocumentUrl, SAMPLE_OUTCOMES } from '../../src/domain/samples/sample-url.ts';
import { ManualClock } from '../../src/ports/clock.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { incomeVerification, uniqueKey, withExampleCaseTypes } from '../support/fixtures.ts';
import { drainCaseJobs, eventTypes, readCase } from '../engine/engine-fixtures.ts';

/** An integrator's own case type, not one of the examples: id numbers, amounts, a list of values. */
const ownCaseType = {
  case_type_id: 'supplier_onboarding',
  name: 'Supplier onboarding',
  operating_mode: 'system_of_record',
  facts: [
    { fact_id: 'company_number', label: 'Company number', type: 'id_number', required: true, document_kinds: ['registration'], anchors: ['Company number', 'Registration no'] },
    { fact_id: 'incorporated_on', label: 'Incorporated on', type: 'date', required: false, document_kinds: ['registration'], anchors: ['Incorporated on'] },
    { fact_id: 'share_capital', label: 'Share capital', type: 'money', required: true, document_kinds: ['registration'], anchors: ['Share capital'] },
    { fact_id: 'legal_form', label: 'Legal form', type: 'string', required: false, document_kinds: ['registration'], anchors: ['Legal form'] },
  ],
  workflow: {
    workflow_id: 'supplier_onboarding',
    nodes: [
      { node_id: 'papers', type: 'upload', title: 'Company papers', documents: [{ document_kind: 'registration', label: 'Certificate of registration', required: true, accept: ['application/pdf'] }] },
      {
        node_id: 'checks',
        type: 'gate',
        title: 'Checks',
        rules: [
          { rule_id: 'present', type: 'required', fact_ids: ['company_number', 'share_capital'], why: 'We need the company number and its capital.' },
          { rule_id: 'capitalised', type: 'min', fact_id: 'share_capital', value: 10000, why: 'Suppliers hold at least 10,000 in capital.' },
          { rule_id: 'form', type: 'one_of', fact_id: 'legal_form', values: ['Limited company', 'Public limited company'], why: 'We contract with companies only.' },
        ],
      },
    ],
  },
};

const NOW = '2026-06-15T12:00:00.000Z';

describe('sample document addresses and plans (pure)', () => {
  const income = parseCaseTypeDefinition(incomeVerification);
  const own = parseCaseTypeDefinition(ownCaseType);
  if (!income.ok || !own.ok) throw new Error('fixture case types are invalid');

  it('reads the grammar dossier-test:<case_type_id>/<kind or upload node>/<outcome> and says what is wrong otherwise', () => {
    expect(parseSampleDocumentUrl('dossier-test:income_verification/pay_stub/missing_fact')).toEqual({ ok: true, value: { caseTypeId: 'income_verification', kindOrNode: 'pay_stub', outcome: 'missing_fact' } });
    expect(parseSampleDocumentUrl('dossier-test:income_verification/pay_stub/on_fire')).toMatchObject({ ok: false, message: expect.stringContaining('all_facts, missing_fact, gate_mismatch, unreadable, slow') });
    expect(parseSampleDocumentUrl('dossier-test:income_verification/pay_stub')).toMatchObject({ ok: false });
    expect(parseSampleDocumentUrl('dossier-test:Income/pay_stub/all_facts')).toMatchObject({ ok: false });
  });

  it('offers every outcome for each example and for an integrator\'s own case type', () => {
    expect(availableOutcomes(income.value, 'pay_stub')).toEqual([...SAMPLE_OUTCOMES]);
    expect(availableOutcomes(own.value, 'registration')).toEqual([...SAMPLE_OUTCOMES]);
  });

  it('takes an upload node id for its first document kind', () => {
    const plan = planSampleDocument({ definition: income.value, address: { caseTypeId: 'income_verification', kindOrNode: 'documents', outcome: 'all_facts' }, answers: {}, now: new Date(NOW) });
    expect(plan).toMatchObject({ ok: true, value: { documentKind: 'pay_stub' } });
  });

  it('fails the name check with another name when the applicant gave theirs, else a rule that fails on the document alone', () => {
    const address = { caseTypeId: 'income_verification', kindOrNode: 'pay_stub', outcome: 'gate_mismatch' } as const;
    expect(planSampleDocument({ definition: income.value, address, answers: { full_name: 'Jane Doe' }, now: new Date(NOW) })).toMatchObject({ ok: true, value: { mismatch: { factId: 'employee_name', ruleId: 'name_matches' } } });
    expect(planSampleDocument({ definition: income.value, address, answers: {}, now: new Date(NOW) })).toMatchObject({ ok: true, value: { mismatch: { factId: 'pay_date', ruleId: 'recent_pay_stub' } } });
  });
});

describeEachBackend('simulated documents through POST /api/v1/process', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  const clock = new ManualClock(NOW);
  const SLOW_MS = 1500;

  beforeAll(async () => {
    // The slow sample's delay, shortened for the test through its setting.
    t = await createTestApp(backend, { clock, env: { SIMULATED_SLOW_READ_MS: String(SLOW_MS) } });
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
    const put = await putCaseType(t.ctx, { orgId: ws.orgId, environment: 'test', definition: ownCaseType });
    if (!put.ok) throw new Error(JSON.stringify(put.problems));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const post = (payload: Record<string, unknown>, key = ws.key) =>
    t.app.inject({ method: 'POST', url: '/api/v1/process', headers: { authorization: `Bearer ${key}`, 'idempotency-key': uniqueKey() }, payload });

  async function processed(payload: Record<string, unknown>) {
    const res = await post(payload);
    expect(res.statusCode, res.body).toBe(202);
    const { case_id: caseId, document_id: docId } = res.json();
    await drainCaseJobs(t);
    const c = await readCase(t, ws, caseId);
    const facts = Object.fromEntries(c.workspace.facts.map((f: { fact_id: string }) => [f.fact_id, f])) as Record<string, Fact>;
    return { caseId, docId, c, facts, doc: c.workspace.documents.find((d: { doc_id: string }) => d.doc_id === docId), events: await eventTypes(t, caseId) };
  }

  interface Fact {
    status: string;
    value: string | null;
    source: string | null;
    reason_codes: string[];
    evidence: { quote: string; location: { char_start: number; char_end: number }; page_index: number; doc_id: string }[];
    verification_metadata: { result?: string }[];
  }

  /** Evidence is real: each quote is the page text at its offsets, on the sample's own page. */
  async function expectRealEvidence(docId: string, facts: Record<string, Fact>) {
    const pages = await t.ctx.db.selectFrom('document_pages').selectAll().where('doc_id', '=', docId).execute();
    expect(pages).toHaveLength(1);
    for (const fact of Object.values(facts)) {
      for (const e of fact.evidence) {
        expect(e.doc_id).toBe(docId);
        expect(pages[e.page_index]!.text.slice(e.location.char_start, e.location.char_end)).toBe(e.quote);
      }
    }
  }

  it('all_facts: every fact is read from a real PDF with evidence, and every check passes', async () => {
    const { docId, c, facts, doc, events } = await processed({ document_url: 'dossier-test:income_verification/pay_stub/all_facts', structured_inputs: { full_name: 'Jane Doe' } });
    expect(c.case_type_id).toBe('income_verification');
    expect(doc).toMatchObject({ status: 'processed', mime_type: 'application/pdf', page_count: 1, document_kind: 'pay_stub' });
    const stored = await t.ctx.db.selectFrom('documents').select(['source', 'source_url', 'sha256']).where('doc_id', '=', docId).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ source: 'url', source_url: 'dossier-test:income_verification/pay_stub/all_facts', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(facts.employee_name).toMatchObject({ status: 'resolved', value: 'Jane Doe', source: 'document_extraction' });
    expect(facts.employer_name).toMatchObject({ status: 'resolved', value: 'Northwind Logistics LLC' });
    expect(facts.pay_date).toMatchObject({ status: 'resolved', value: '2026-06-13' });
    expect(facts.gross_pay).toMatchObject({ status: 'resolved', value: '2451.00' });
    for (const fact of Object.values(facts)) expect(fact.evidence).toHaveLength(1);
    await expectRealEvidence(docId, facts);
    expect(facts.employee_name!.verification_metadata).toEqual([expect.objectContaining({ result: 'match' })]);
    expect(c.runtime_status).toBe('ready_for_review');
    expect(c.queue_row.why_here_code).toBe('review_step_reached');
    expect(events).toEqual(expect.arrayContaining(['document.uploaded', 'document.processing', 'document.processed', 'case.ready_for_review']));
    // The sample's bytes were stored, so the console shows the page like any document's.
    expect(await t.ctx.blobs.get(t.ctx.db, docId)).toMatchObject({ ok: true, bytes: expect.any(Uint8Array) });
  });

  it('missing_fact: the required fact is not on the page, so the gate asks for it (an operator, with no applicant)', async () => {
    const { docId, c, facts, events } = await processed({ document_url: 'dossier-test:income_verification/pay_stub/missing_fact', case_type_id: 'income_verification', structured_inputs: { full_name: 'Jane Doe' } });
    expect(facts.employee_name!.status).toBe('needs_input');
    expect(facts.employee_name!.value).toBeNull();
    expect(facts.employee_name!.reason_codes).toContain('missing_value');
    expect(facts.pay_date).toMatchObject({ status: 'resolved' });
    expect(facts.gross_pay).toMatchObject({ status: 'resolved' });
    await expectRealEvidence(docId, facts);
    expect(c.runtime_status).toBe('ready_for_review');
    expect(c.queue_row.why_here_code).toBe('needs_input_without_applicant');
    expect(events).toEqual(expect.arrayContaining(['document.processed', 'case.ready_for_review']));
  });

  it('gate_mismatch: the name on the page is not the applicant\'s, so the name check fails', async () => {
    const { c, facts, events } = await processed({ document_url: 'dossier-test:income_verification/pay_stub/gate_mismatch', structured_inputs: { full_name: 'Jane Doe' } });
    expect(facts.employee_name).toMatchObject({ status: 'resolved', value: 'Robert Miller' });
    expect(facts.employee_name!.reason_codes).toContain('input_mismatch');
    expect(facts.employee_name!.verification_metadata).toEqual([expect.objectContaining({ result: 'mismatch' })]);
    const row = await t.ctx.db.selectFrom('cases').select('gate_results').where('case_id', '=', c.case_id).executeTakeFirstOrThrow();
    expect(row.gate_results).toEqual(expect.arrayContaining([expect.objectContaining({ rule_id: 'name_matches', outcome: 'failed' })]));
    expect(c.runtime_status).toBe('ready_for_review');
    expect(c.queue_row.why_here_code).toBe('gate_failed');
    expect(events).toEqual(expect.arrayContaining(['document.processed', 'case.ready_for_review']));
  });

  it('unreadable: an image-only scan with no text fails with no_text_found, through real OCR', async () => {
    const { docId, c, doc, events } = await processed({ document_url: 'dossier-test:address_proof/utility_bill/unreadable' });
    expect(doc).toMatchObject({ status: 'failed', failure_reason: 'no_text_found', mime_type: 'application/pdf' });
    const failed = await t.ctx.db.selectFrom('case_events').select(['event_type', 'data']).where('case_id', '=', c.case_id).where('event_type', '=', 'document.failed').executeTakeFirstOrThrow();
    expect(failed.data).toMatchObject({ doc_id: docId, reason_code: 'no_text_found' });
    expect(events).toEqual(expect.arrayContaining(['document.uploaded', 'document.processing', 'document.failed', 'case.ready_for_review']));
    expect(events).not.toContain('document.processed');
    expect(c.runtime_status).toBe('ready_for_review');
  }, 60_000);

  it('slow: the document stays processing for SIMULATED_SLOW_READ_MS, then every fact is found', async () => {
    const res = await post({ document_url: 'dossier-test:income_verification/pay_stub/slow', structured_inputs: { full_name: 'Jane Doe' } });
    expect(res.statusCode, res.body).toBe(202);
    const { case_id: caseId, document_id: docId } = res.json();
    const started = performance.now();
    const draining = drainCaseJobs(t);
    // While the read is under way, the case and the document say so.
    const during = await readCase(t, ws, caseId);
    expect(during.runtime_status).toBe('processing');
    await draining;
    expect(performance.now() - started).toBeGreaterThanOrEqual(SLOW_MS - 50);
    const c = await readCase(t, ws, caseId);
    expect(c.workspace.documents.find((d: { doc_id: string }) => d.doc_id === docId)).toMatchObject({ status: 'processed' });
    expect(c.workspace.facts.every((f: { status: string }) => f.status === 'resolved')).toBe(true);
    expect(c.runtime_status).toBe('ready_for_review');
  }, 30_000);

  it('any case type: an integrator\'s own gets every outcome, from its own facts and gates', async () => {
    const all = await processed({ document_url: 'dossier-test:supplier_onboarding/registration/all_facts' });
    expect(all.facts.company_number).toMatchObject({ status: 'resolved', value: 'AB-482139' });
    expect(all.facts.share_capital).toMatchObject({ status: 'resolved' });
    expect(Number(all.facts.share_capital!.value)).toBeGreaterThanOrEqual(10000);
    expect(all.facts.legal_form).toMatchObject({ status: 'resolved', value: 'Limited company' });
    await expectRealEvidence(all.docId, all.facts);
    // system_of_record: every check passed, the decision is the customer's.
    expect(all.c.runtime_status).toBe('complete');
    expect(all.events).toContain('case.completed');

    const mismatch = await processed({ document_url: 'dossier-test:supplier_onboarding/papers/gate_mismatch' });
    expect(mismatch.facts.share_capital!.reason_codes).toContain('below_minimum');
    expect(mismatch.c.queue_row.why_here_code).toBe('gate_failed');

    const missing = await processed({ document_url: 'dossier-test:supplier_onboarding/registration/missing_fact' });
    expect(missing.facts.company_number!.status).toBe('needs_input');
  });

  it('a live key gets validation_error invalid_document_url naming document_url: samples are test mode only', async () => {
    const live = await t.createKey(ws.orgId, { environment: 'live' });
    const res = await post({ document_url: 'dossier-test:income_verification/pay_stub/all_facts', case_type_id: 'income_verification' }, live.key);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ type: 'validation_error', code: 'invalid_document_url', param: 'document_url', message: expect.stringContaining('test mode only') });
  });

  it('refuses an address that does not fit, saying what does not fit, and opens no case', async () => {
    const cases = async () => (await t.ctx.db.selectFrom('cases').select('case_id').where('org_id', '=', ws.orgId).execute()).length;
    const before = await cases();
    const wrong = [
      ['dossier-test:income_verification/pay_stub/on_fire', 'on_fire'],
      ['dossier-test:income_verification/utility_bill/all_facts', 'neither a document kind nor an upload step'],
      ['dossier-test:no_such_type/pay_stub/all_facts', 'no_such_type'],
      ['dossier-test:address_proof/utility_bill/all_facts?x=1', 'not a sample document address'],
    ] as const;
    for (const [url, says] of wrong) {
      const res = await post({ document_url: url });
      expect(res.statusCode, url).toBe(url.includes('no_such_type') ? 404 : 400);
      if (!url.includes('no_such_type')) expect(res.json().error, url).toMatchObject({ code: 'invalid_document_url', param: 'document_url', message: expect.stringContaining(says) });
    }
    const otherType = await post({ document_url: 'dossier-test:address_proof/utility_bill/all_facts', case_type_id: 'income_verification' });
    expect(otherType.json().error).toMatchObject({ code: 'invalid_document_url', message: expect.stringContaining('income_verification') });
    const otherKind = await post({ document_url: 'dossier-test:income_verification/pay_stub/all_facts', document_kind: 'bank_statement' });
    expect(otherKind.json().error).toMatchObject({ param: 'document_kind' });
    expect(await cases()).toBe(before);
  });
});
