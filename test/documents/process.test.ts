import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { ManualClock } from '../../src/ports/clock.ts';
import { createTestApp, describeEachBackend, itOnPostgres, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { describeEachStore } from '../support/object-store.ts';
import { uniqueKey, withExampleCaseTypes } from '../support/fixtures.ts';
import { drainCaseJobs, eventTypes, readCase } from '../engine/engine-fixtures.ts';
import { startDocumentServer } from './document-server.ts';

const PAY_STUB = [
  'ACME WIDGETS INC',
  'Earnings Statement',
  'Employee name: Jane Doe',
  'Employer: Acme Widgets Inc',
  'Pay date: 06/05/2026',
  'Gross pay: $2,450.00',
  'Net pay: $1,980.12',
].join('\n');

async function payStubPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  PAY_STUB.split('\n').forEach((line, i) => page.drawText(line, { x: 50, y: 780 - i * 20, size: 12, font }));
  return Buffer.from(await doc.save());
}

describeEachStore('POST /api/v1/process', (backend, _store, storeEnv) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let docs: Awaited<ReturnType<typeof startDocumentServer>>;
  const clock = new ManualClock('2026-06-15T12:00:00.000Z');

  beforeAll(async () => {
    docs = await startDocumentServer({
      '/paystub.txt': { body: PAY_STUB, type: 'text/plain' },
      '/paystub.pdf': { body: await payStubPdf(), type: 'application/pdf' },
      '/paystub-disguised.txt': { body: await payStubPdf(), type: 'text/plain' },
      '/gone': { status: 404 },
      '/binary': { body: Buffer.from([0, 1, 2, 3, 255, 254, 0, 0]) },
    });
    t = await createTestApp(backend, { clock, env: { ...(await storeEnv()), DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' } });
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await docs.close();
  });

  const post = (payload: Record<string, unknown>, key = uniqueKey()) =>
    t.app.inject({ method: 'POST', url: '/api/v1/process', headers: { authorization: `Bearer ${ws.key}`, 'idempotency-key': key }, payload });

  it('accepts a document, processes it, extracts facts with exact evidence, and runs the gates', async () => {
    const res = await post({ document_url: docs.url('/paystub.txt'), case_type_id: 'income_verification', document_kind: 'pay_stub', structured_inputs: { full_name: 'Jane Doe' } });
    expect(res.statusCode, res.body).toBe(202);
    const { case_id: caseId, document_id: docId, status } = res.json();
    expect(status).toBe('processing');
    expect(docId).toMatch(/^doc_/);
    expect((await readCase(t, ws, caseId)).runtime_status).toBe('processing');

    await drainCaseJobs(t);
    const c = await readCase(t, ws, caseId);
    expect(c.workspace.documents).toEqual([expect.objectContaining({ doc_id: docId, status: 'processed', mime_type: 'text/plain', page_count: 1 })]);
    const facts = Object.fromEntries(c.workspace.facts.map((f: { fact_id: string }) => [f.fact_id, f]));
    expect(facts.employee_name).toMatchObject({ status: 'resolved', value: 'Jane Doe', source: 'document_extraction' });
    expect(facts.pay_date).toMatchObject({ status: 'resolved', value: '2026-06-05' });
    expect(facts.gross_pay).toMatchObject({ status: 'resolved', value: '2450.00' });
    const pages = await t.ctx.db.selectFrom('document_pages').selectAll().where('doc_id', '=', docId).execute();
    for (const fact of Object.values(facts) as { evidence: { quote: string; location: { char_start: number; char_end: number }; page_index: number }[]; provenance: { quote: string; char_start: number; char_end: number }[] }[]) {
      for (const e of fact.evidence) expect(pages[e.page_index]!.text.slice(e.location.char_start, e.location.char_end)).toBe(e.quote);
      for (const p of fact.provenance) expect(pages[0]!.text.slice(p.char_start, p.char_end)).toBe(p.quote);
    }
    // system_of_action with a review node: every check passes, an operator decides.
    expect(c.runtime_status).toBe('ready_for_review');
    expect(c.queue_row.why_here_code).toBe('review_step_reached');
    expect(await eventTypes(t, caseId)).toEqual(expect.arrayContaining(['document.uploaded', 'document.processing', 'document.processed', 'case.ready_for_review']));
    // Both jobs were created at the same (held) instant, so their order is by id: compare as a set.
    const jobs = c.workspace.jobs.map((j: { kind: string; status: string }) => `${j.kind}:${j.status}`);
    expect(jobs.sort()).toEqual(['document_processing:succeeded', 'gate_evaluation:succeeded']);
  });

  it('sniffs the type from the bytes, not the name, and reads a PDF text layer', async () => {
    const res = await post({ document_url: docs.url('/paystub-disguised.txt'), case_type_id: 'income_verification', document_kind: 'pay_stub', filename: 'stub.txt' });
    await drainCaseJobs(t);
    const c = await readCase(t, ws, res.json().case_id);
    expect(c.workspace.documents[0]).toMatchObject({ status: 'processed', mime_type: 'application/pdf', filename: 'stub.txt' });
    expect(c.workspace.facts.find((f: { fact_id: string }) => f.fact_id === 'gross_pay')).toMatchObject({ value: '2450.00' });
  });

  it('marks a document failed with a reason code when the fetch fails, and sends the case to review', async () => {
    const res = await post({ document_url: docs.url('/gone'), case_type_id: 'income_verification', document_kind: 'pay_stub' });
    await drainCaseJobs(t);
    const c = await readCase(t, ws, res.json().case_id);
    expect(c.workspace.documents[0]).toMatchObject({ status: 'failed', failure_reason: 'fetch_http_error' });
    expect(c.runtime_status).toBe('ready_for_review');
    expect(c.queue_row).toMatchObject({ queue_category: 'exception', why_here_code: 'document_failed' });
    expect(await eventTypes(t, res.json().case_id)).toContain('document.failed');
  });

  it('refuses bytes of no accepted type', async () => {
    const res = await post({ document_url: docs.url('/binary'), case_type_id: 'address_proof', document_kind: 'utility_bill' });
    await drainCaseJobs(t);
    const c = await readCase(t, ws, res.json().case_id);
    expect(c.workspace.documents[0]).toMatchObject({ status: 'failed', failure_reason: 'unsupported_type' });
  });

  it('adds a document to an existing case named by case_id', async () => {
    const first = await post({ document_url: docs.url('/gone'), case_type_id: 'income_verification', document_kind: 'pay_stub' });
    const caseId = first.json().case_id;
    const second = await post({ document_url: docs.url('/paystub.txt'), case_id: caseId, document_kind: 'pay_stub' });
    expect(second.statusCode).toBe(202);
    expect(second.json().case_id).toBe(caseId);
    await drainCaseJobs(t);
    const c = await readCase(t, ws, caseId);
    expect(c.workspace.documents.map((d: { status: string }) => d.status).sort()).toEqual(['failed', 'processed']);
    const closed = await post({ document_url: docs.url('/paystub.txt'), case_id: caseId });
    expect(closed.statusCode).toBe(400);
    expect(closed.json().error.message).toMatch(/takes no more documents/);
  });

  it('replays and conflicts like sessions', async () => {
    const key = uniqueKey();
    const body = { document_url: docs.url('/paystub.txt'), case_type_id: 'income_verification' };
    const first = await post(body, key);
    const again = await post(body, key);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual({ ...first.json(), idempotent_replay: true });
    const conflict = await post({ ...body, case_type_id: 'address_proof' }, key);
    expect(conflict.json().error.code).toBe('idempotency_key_conflict');
  });

  itOnPostgres(backend, 'creates one case and one document for concurrent requests with one key; the rest replay', async () => {
    const key = uniqueKey();
    const body = { document_url: docs.url('/paystub.txt'), case_type_id: 'income_verification', external_case_id: `ext-${key}` };
    const results = await Promise.all(Array.from({ length: 6 }, () => post(body, key)));
    expect(results.filter((r) => r.statusCode === 202)).toHaveLength(1);
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(5);
    expect(new Set(results.map((r) => r.json().document_id)).size).toBe(1);
    const cases = await t.ctx.db.selectFrom('cases').select('case_id').where('external_case_id', '=', `ext-${key}`).execute();
    expect(cases).toHaveLength(1);
    const again = await post(body);
    expect(again.statusCode).toBe(400);
    expect(again.json().error.code).toBe('external_case_id_conflict');
    await drainCaseJobs(t);
  });

  describe('errors', () => {
    const expectCode = async (payload: Record<string, unknown>, status: number, code: string, headers: Record<string, string> = { 'idempotency-key': uniqueKey() }) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/process', headers: { authorization: `Bearer ${ws.key}`, ...headers }, payload });
      expect(res.statusCode, `${JSON.stringify(payload)} ${res.body}`).toBe(status);
      expect(res.json().error.code).toBe(code);
    };
    it('missing_document_url', async () => {
      await expectCode({ case_type_id: 'income_verification' }, 400, 'missing_document_url');
      await expectCode({ case_type_id: 'income_verification', document_url: '' }, 400, 'missing_document_url');
    });
    it('invalid_document_url', async () => {
      await expectCode({ case_type_id: 'income_verification', document_url: 'not a url' }, 400, 'invalid_document_url');
      await expectCode({ case_type_id: 'income_verification', document_url: 'ftp://127.0.0.1/x' }, 400, 'invalid_document_url');
      await expectCode({ case_type_id: 'income_verification', document_url: 42 }, 400, 'invalid_document_url');
    });
    it('missing_idempotency_key', async () => {
      await expectCode({ case_type_id: 'income_verification', document_url: docs.url('/paystub.txt') }, 400, 'missing_idempotency_key', {});
    });
    it('missing_case_type_id', async () => {
      await expectCode({ document_url: docs.url('/paystub.txt') }, 400, 'missing_case_type_id');
    });
    it('not_found for an unknown case type or case', async () => {
      await expectCode({ document_url: docs.url('/paystub.txt'), case_type_id: 'nope' }, 404, 'not_found');
      await expectCode({ document_url: docs.url('/paystub.txt'), case_id: 'case_nope' }, 404, 'not_found');
    });
    it('needs process:write', async () => {
      const reader = await t.createKey(ws.orgId, { scopes: ['cases:read'] });
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/process', headers: { authorization: `Bearer ${reader.key}`, 'idempotency-key': uniqueKey() }, payload: { document_url: docs.url('/x') } });
      expect(res.statusCode).toBe(403);
    });
  });
});

describeEachBackend('POST /api/v1/process without DOSSIER_ALLOW_PRIVATE_NETWORK', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  beforeAll(async () => {
    t = await createTestApp(backend);
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
  });
  afterAll(() => t.close());

  it.each(['http://127.0.0.1/doc.pdf', 'https://127.0.0.1/doc.pdf', 'https://127.1.2.3/doc.pdf', 'https://localhost/doc.pdf', 'https://[::1]/doc.pdf', 'https://[::ffff:127.0.0.1]/doc.pdf', 'https://0.0.0.0/doc.pdf'])(
    'refuses %s as invalid_document_url',
    async (url) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/process', headers: { authorization: `Bearer ${ws.key}`, 'idempotency-key': uniqueKey() }, payload: { document_url: url, case_type_id: 'income_verification' } });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_document_url');
      const cases = await t.ctx.db.selectFrom('cases').select('case_id').where('org_id', '=', ws.orgId).execute();
      expect(cases).toEqual([]);
    },
  );
});
