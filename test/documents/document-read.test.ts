import type { Dossier } from '@dossier/client';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.ts';
import { drainCaseJobs } from '../engine/engine-fixtures.ts';
import { dossierError, dossierFor } from '../support/dossier-client.ts';
import { uniqueKey, withExampleCaseTypes } from '../support/fixtures.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { startDocumentServer } from './document-server.ts';

const STUB = ['Earnings Statement', 'Employee name:   Jane Doe', 'Pay date: 2026-06-05', 'Gross pay: $2,450.00'].join('\n');

async function stubPdf(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([612, 792]);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  STUB.split('\n').forEach((line, i) => page.drawText(line.replace(/ +/g, ' '), { x: 50, y: 740 - i * 16, size: 11, font }));
  return Buffer.from(await pdf.save());
}

describeEachBackend('GET /api/v1/cases/{case_id}/documents/{doc_id}', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let dossier: Dossier;
  let docs: Awaited<ReturnType<typeof startDocumentServer>>;
  const clock = new ManualClock('2026-06-15T12:00:00.000Z');

  beforeAll(async () => {
    docs = await startDocumentServer({ '/stub.txt': { body: STUB, type: 'text/plain' }, '/stub.pdf': { body: await stubPdf(), type: 'application/pdf' } });
    t = await createTestApp(backend, { clock, env: { DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' } });
    ws = await t.workspace();
    dossier = dossierFor(t, ws);
    await withExampleCaseTypes(t, ws.orgId);
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await docs.close();
  });

  async function processed(path: string): Promise<{ caseId: string; docId: string }> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/process',
      headers: { authorization: `Bearer ${ws.key}`, 'idempotency-key': uniqueKey() },
      payload: { document_url: docs.url(path), case_type_id: 'income_verification', document_kind: 'pay_stub', filename: path.slice(1) },
    });
    expect(res.statusCode, res.body).toBe(202);
    await drainCaseJobs(t);
    return { caseId: res.json().case_id, docId: res.json().document_id };
  }

  it('returns the document and the canonical page text every evidence location indexes', async () => {
    const { caseId, docId } = await processed('/stub.txt');
    const doc = await dossier.cases.documents.retrieve(caseId, docId);
    expect(doc.lastResponse.status).toBe(200);
    expect(doc).toMatchObject({
      doc_id: docId,
      case_id: caseId,
      status: 'processed',
      mime_type: 'text/plain',
      document_kind: 'pay_stub',
      filename: 'stub.txt',
      byte_size: Buffer.byteLength(STUB),
      page_count: 1,
      failure_reason: null,
    });
    expect(doc.pages).toEqual([{ page_index: 0, method: 'plain', text: expect.stringContaining('Employee name:\tJane Doe'), width: null, height: null, unit: null }]);
    const record = await dossier.cases.retrieve(caseId);
    const evidence = record.workspace.facts.flatMap((f) => f.evidence);
    expect(evidence.length).toBeGreaterThanOrEqual(3);
    const fold = (x: string) => x.replace(/\s+/g, ' ').trim();
    for (const e of evidence) {
      expect(doc.pages[e.page_index]!.text.slice(e.location.char_start, e.location.char_end)).toBe(e.quote);
      // The source points into the file as uploaded, where the name sits after three spaces.
      if (e.source?.kind !== 'text') throw new Error(`expected a text source, got ${JSON.stringify(e.source)}`);
      expect(fold(STUB.slice(e.source.char_start, e.source.char_end))).toBe(fold(e.quote));
    }
  });

  it('gives PDF pages their size in points', async () => {
    const { caseId, docId } = await processed('/stub.pdf');
    const doc = await dossier.cases.documents.retrieve(caseId, docId);
    expect(doc.pages).toEqual([expect.objectContaining({ page_index: 0, method: 'text_layer', width: 612, height: 792, unit: 'pt' })]);
    expect(doc.pages[0]!.text).toContain('Gross pay: $2,450.00');
    const record = await dossier.cases.retrieve(caseId);
    const gross = record.workspace.facts.find((f) => f.fact_id === 'gross_pay')!.evidence[0]!;
    expect(gross.source).toMatchObject({ kind: 'box', page_index: 0 });
    // Line 4 of the stub: baseline 740 - 3 × 16 = 692 pt from the bottom, 100 pt from the top.
    if (gross.source?.kind !== 'box') throw new Error('expected a box');
    expect(gross.source.y).toBeLessThan(100);
    expect(gross.source.y + gross.source.height).toBeGreaterThan(100);
    expect(gross.source.x).toBeGreaterThan(50);
  });

  it('answers an erased document with status erased and no text', async () => {
    const { caseId, docId } = await processed('/stub.txt');
    await dossier.cases.documents.erase(caseId, docId);
    const doc = await dossier.cases.documents.retrieve(caseId, docId);
    expect(doc).toMatchObject({ doc_id: docId, status: 'erased', pages: [], filename: null, sha256: null });
    expect(JSON.stringify(doc)).not.toContain('Jane');
  });

  it('is not_found for an unknown document, an unknown case, and another organisation’s document', async () => {
    const { caseId, docId } = await processed('/stub.txt');
    expect((await dossierError(dossier.cases.documents.retrieve(caseId, 'doc_nope'))).code).toBe('not_found');
    expect((await dossierError(dossier.cases.documents.retrieve('case_nope', docId))).code).toBe('not_found');
    const other = await t.workspace();
    const stranger = await t.app.inject({ method: 'GET', url: `/api/v1/cases/${caseId}/documents/${docId}`, headers: { authorization: `Bearer ${other.key}` } });
    expect(stranger.statusCode).toBe(404);
    expect(stranger.json().error.code).toBe('not_found');
    expect(stranger.body).not.toContain('Jane');
  });
});
