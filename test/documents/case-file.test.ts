import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.ts';
import { createTestApp, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { uniqueKey, withExampleCaseTypes } from '../support/fixtures.ts';
import { drainCaseJobs } from '../engine/engine-fixtures.ts';
import { startDocumentServer } from './document-server.ts';

let t: TestApp;
let ws: TestWorkspace;
let docs: Awaited<ReturnType<typeof startDocumentServer>>;
const clock = new ManualClock('2026-06-15T12:00:00.000Z');

beforeAll(async () => {
  docs = await startDocumentServer({
    '/stub.txt': { body: 'Employee name: Jane Doe\nPay date: 2026-06-01\nGross pay: $2,450.00\n', type: 'text/plain' },
  });
  t = await createTestApp('embedded', { clock, env: { DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' } });
  ws = await t.workspace();
  await withExampleCaseTypes(t, ws.orgId);
});
afterAll(async () => {
  await t.close();
  await docs.close();
});

it('seals the facts with their evidence quotes, the documents, the decision, the timeline and the package hash', async () => {
  const auth = { authorization: `Bearer ${ws.key}` };
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/process',
    headers: { ...auth, 'idempotency-key': uniqueKey() },
    payload: { document_url: docs.url('/stub.txt'), case_type_id: 'income_verification', document_kind: 'pay_stub', structured_inputs: { full_name: 'Jane Doe' } },
  });
  const caseId = res.json().case_id;
  await drainCaseJobs(t);
  const decided = await t.app.inject({ method: 'POST', url: `/api/v1/cases/${caseId}/decision`, headers: auth, payload: { decision: 'approve', reason: 'Verified with employer' } });
  expect(decided.json().case_status).toBe('approved');

  const pkg = (await t.app.inject({ method: 'GET', url: `/api/v1/cases/${caseId}/package`, headers: auth })).json();
  expect(pkg).toMatchObject({ case_status: 'approved', decision_reason: 'Verified with employer', facts: { gross_pay: { value: '2450.00' } } });
  const link = new URL(pkg.case_file_url);
  const pdf = await t.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
  expect(pdf.statusCode).toBe(200);

  const pages = await t.ctx.extraction.extractPages({ bytes: new Uint8Array(pdf.rawPayload) });
  if (!pages.ok) throw new Error(pages.message);
  const text = pages.value.pages.map((p) => p.text).join('\n');
  expect(text).toContain(`Case file ${caseId}`);
  expect(text).toContain('approved');
  expect(text).toContain('Verified with employer');
  expect(text).toContain('2450.00');
  expect(text).toContain(pkg.facts.gross_pay.evidence[0].quote);
  expect(text).toContain(pkg.documents[0].doc_id);
  expect(text).toContain('case.completed');
  expect(text.replace(/\s+/g, '')).toContain(pkg.contents_sha256);
});
