import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExtractPagesInput } from '../../src/domain/documents/index.ts';
import { ApplicantAgent, multipartBody } from '../support/applicant.ts';
import { newSession, uniqueKey, withExampleCaseTypes } from '../support/fixtures.ts';
import { createTestApp, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { cookieHeader, csrfOf } from '../support/web.ts';
import { drainCaseJobs } from '../engine/engine-fixtures.ts';
import { textPdf } from '../extraction/helpers.ts';
import { startDocumentServer } from './document-server.ts';

/**
 * Issue 28 §3: the document job asks the extraction children to read a case's documents in the
 * languages of its applicant's session and of its case type (the example case types are written
 * in English and translated into French, German and Spanish, taken alphabetically; no Spanish
 * model is installed).
 * The choice itself is unit-tested in test/extraction/locale-packs.test.ts.
 */
describe('OCR languages of a case’s documents', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  const asked: ExtractPagesInput[] = [];
  let docs: Awaited<ReturnType<typeof startDocumentServer>>;

  beforeAll(async () => {
    docs = await startDocumentServer({ '/bill.txt': { body: 'Account holder: Jane Doe\nService address: 12 High Street, Leeds LS1 4AB', type: 'text/plain' } });
    t = await createTestApp('embedded', { env: { DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' } });
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
    const pool = t.ctx.extraction;
    t.ctx.extraction = {
      pids: [],
      close: () => pool.close(),
      renderPages: (input) => pool.renderPages(input),
      extractPages: (input) => {
        asked.push(input);
        return pool.extractPages(input);
      },
    };
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await docs.close();
  });

  const bill = () => textPdf([
    { text: 'NORTHERN POWER', y: 780 },
    { text: 'Account holder: Jane Doe', y: 740 },
    { text: 'Service address: 12 High Street, Leeds LS1 4AB', y: 720 },
  ]);

  it('reads a French applicant’s upload in French first, then the case type’s English and German', async () => {
    const s = await newSession(t, ws, 'address_proof', { locale: 'fr' });
    const agent = new ApplicantAgent(t);
    const first = await agent.get(new URL(s.signed_url).pathname + new URL(s.signed_url).search);
    await agent.get(String(first.headers.location));
    const page = `/app/s/${s.session_id}/upload/bill`;
    const body = multipartBody({ _csrf: csrfOf((await agent.get(page)).body), kind: 'utility_bill' }, { name: 'file', filename: 'bill.pdf', type: 'application/pdf', bytes: await bill() });
    const up = await t.app.inject({ method: 'POST', url: `${page}/files`, headers: { 'content-type': body.contentType, cookie: cookieHeader(agent.cookies) }, payload: body.payload });
    expect(up.statusCode).toBe(303);
    asked.length = 0;
    await drainCaseJobs(t);
    expect(asked.map((input) => input.ocrLanguages)).toEqual([{ page: ['fra', 'eng', 'deu'], marks: ['fra', 'deu', 'por', 'dan', 'gle'] }]);
  });

  it('reads a document sent to /process, with no session, in the case type’s languages', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/process',
      headers: { authorization: `Bearer ${ws.key}`, 'idempotency-key': uniqueKey() },
      payload: { document_url: docs.url('/bill.txt'), case_type_id: 'address_proof', document_kind: 'utility_bill' },
    });
    expect(res.statusCode, res.body).toBe(202);
    asked.length = 0;
    await drainCaseJobs(t);
    expect(asked.map((input) => input.ocrLanguages?.page)).toEqual([['eng', 'deu', 'fra']]);
  });
});
