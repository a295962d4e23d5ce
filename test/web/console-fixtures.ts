import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { TestApp, TestWorkspace } from '../support/harness.ts';
import { uniqueKey } from '../support/fixtures.ts';
import { drainCaseJobs } from '../engine/engine-fixtures.ts';

export const PAY_STUB_LINES = [
  'ACME WIDGETS INC',
  'Earnings Statement',
  'Employee name: Jane Doe',
  'Employer: Acme Widgets Inc',
  'Pay date: 06/05/2026',
  'Gross pay: $2,450.00',
  'Net pay: $1,980.12',
];

/** A pay stub PDF whose first page carries the facts, followed by `extraPages` pages of filler. */
export async function payStubPdf(extraPages = 1): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const first = doc.addPage([595, 842]);
  PAY_STUB_LINES.forEach((line, i) => first.drawText(line, { x: 50, y: 780 - i * 20, size: 12, font }));
  for (let p = 0; p < extraPages; p++) {
    const page = doc.addPage([595, 842]);
    for (let i = 0; i < 30; i++) page.drawText(`Year to date detail line ${i + 1} of page ${p + 2}: deductions and hours worked`, { x: 50, y: 780 - i * 22, size: 11, font });
  }
  return Buffer.from(await doc.save());
}

/**
 * A case made the way a customer makes one: POST /api/v1/process with a PDF the test serves, then
 * the case jobs. The applicant name given differs from the stub's, so the name check fails and
 * the employee name is a blocking fact of a case awaiting review.
 */
export async function processedCase(t: TestApp, ws: TestWorkspace, documentUrl: string, externalCaseId: string, fullName = 'John Smith'): Promise<{ caseId: string; docId: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/process',
    headers: { authorization: `Bearer ${ws.key}`, 'idempotency-key': uniqueKey() },
    payload: { document_url: documentUrl, case_type_id: 'income_verification', document_kind: 'pay_stub', filename: 'pay-stub.pdf', external_case_id: externalCaseId, structured_inputs: { full_name: fullName } },
  });
  if (res.statusCode !== 202) throw new Error(res.body);
  await drainCaseJobs(t);
  const { case_id: caseId, document_id: docId } = res.json();
  return { caseId, docId };
}
