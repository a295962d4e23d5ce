import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { describeEachStore } from '../support/object-store.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { ApplicantAgent, multipartBody } from '../support/applicant.ts';
import { cookieHeader, csrfOf } from '../support/web.ts';
import { encryptedPdf, textPdf, utf8 } from '../extraction/helpers.ts';
import { drainCaseJobs, eventTypes, readCase } from '../engine/engine-fixtures.ts';

export async function payStubPdf(opts: { name: string; payDate: string; gross?: string }) {
  return textPdf([
    { text: 'ACME MANUFACTURING LTD', y: 780 },
    { text: `Employee name: ${opts.name}`, y: 740 },
    { text: `Pay date: ${opts.payDate}`, y: 720 },
    ...(opts.gross ? [{ text: `Gross pay: $${opts.gross}`, y: 700 }] : []),
    { text: 'Net pay: $1,610.22', y: 680 },
  ]);
}

describeEachStore('applicant app: uploads, check answers, submit, status and follow-ups', (backend, _store, storeEnv) => {
  let t: TestApp;
  let ws: TestWorkspace;
  const today = () => t.clock.now().toISOString().slice(0, 10);
  beforeAll(async () => {
    t = await createTestApp(backend, { env: await storeEnv() });
    ws = await t.workspace({ name: 'Acme Lending' });
    await withExampleCaseTypes(t, ws.orgId);
  });
  afterAll(() => t.close());

  async function started(caseType = 'income_verification', extra = {}) {
    const s = await newSession(t, ws, caseType, extra);
    const agent = new ApplicantAgent(t);
    await agent.open(s.signed_url);
    return { s, agent, base: `/app/s/${s.session_id}` };
  }

  async function upload(agent: ApplicantAgent, url: string, pageUrl: string, kind: string, file?: { filename: string; bytes: Uint8Array; type?: string }, accept = 'text/html') {
    const csrf = csrfOf((await agent.get(pageUrl)).body);
    const body = multipartBody({ _csrf: csrf, kind }, file ? { name: 'file', filename: file.filename, type: file.type ?? 'application/octet-stream', bytes: file.bytes } : { name: 'file', filename: '', type: 'application/octet-stream', bytes: new Uint8Array() });
    return t.app.inject({ method: 'POST', url, headers: { 'content-type': body.contentType, cookie: cookieHeader(agent.cookies), accept }, payload: body.payload });
  }

  async function fillAboutYou(agent: ApplicantAgent, base: string, name = 'Jane Doe') {
    const res = await agent.post(`${base}/form/applicant`, { full_name: name, email: 'jane@example.com', 'date_of_birth-day': '7', 'date_of_birth-month': '3', 'date_of_birth-year': '1990' });
    expect(res.statusCode).toBe(303);
  }

  it('gives every upload problem its own message, and keeps nothing refused', async () => {
    const { s, agent, base } = await started();
    const page = `${base}/upload/documents`;
    const files = `${page}/files`;
    const shown = await agent.get(page);
    expect(shown.body).toMatch(/<input[^>]*id="file-pay_stub"[^>]*type="file"[^>]*accept="application\/pdf,image\/png,image\/jpeg"/);
    expect(shown.body).toMatch(/<input[^>]*id="photo-pay_stub"[^>]*type="file"[^>]*accept="image\/png,image\/jpeg"[^>]*capture="environment"/);
    expect(shown.body).toContain('Pay stub: take a photo');

    const cases: Array<[string, Parameters<typeof upload>[4], number, string]> = [
      ['none chosen', undefined, 400, 'Select a file for pay stub'],
      ['wrong type', { filename: 'notes.txt', bytes: utf8('Employee name: Jane') }, 415, 'The selected file must be a PDF, PNG or JPG'],
      ['empty', { filename: 'empty.pdf', bytes: new Uint8Array() }, 400, 'The selected file is empty'],
      ['password protected', { filename: 'locked.pdf', bytes: encryptedPdf() }, 422, 'The selected file is password protected – upload a copy without a password'],
      ['too big', { filename: 'huge.pdf', bytes: new Uint8Array(20 * 1024 * 1024 + 1).fill(0x25) }, 413, 'The selected file must be smaller than 20 MB'],
    ];
    for (const [label, file, status, message] of cases) {
      const res = await upload(agent, files, page, 'pay_stub', file);
      expect(res.statusCode, label).toBe(status);
      expect(res.body, label).toContain(message);
      expect(res.body, label).toContain('href="#file-pay_stub"');
    }
    expect(await t.ctx.db.selectFrom('documents').select('doc_id').where('case_id', '=', s.case_id).execute()).toEqual([]);

    const pdf = await payStubPdf({ name: 'Jane Doe', payDate: today(), gross: '2,150.00' });
    for (const name of ['one.pdf', 'two.pdf']) expect((await upload(agent, files, page, 'pay_stub', { filename: name, bytes: pdf })).statusCode).toBe(303);
    const third = await upload(agent, files, page, 'pay_stub', { filename: 'three.pdf', bytes: pdf });
    expect(third.statusCode).toBe(409);
    expect(third.body).toContain('You can upload up to 2 files for pay stub – remove one before adding another');

    // The page's script asks for JSON and gets the same rules.
    const json = await upload(agent, files, page, 'pay_stub', { filename: 'x.txt', bytes: utf8('hello') }, 'application/json');
    expect(json.statusCode).toBe(415);
    expect(json.json()).toMatchObject({ ok: false, problem: 'wrong_type', message: 'The selected file must be a PDF, PNG or JPG' });
  });

  it('refuses an upload without the CSRF token before keeping any byte', async () => {
    const { s, agent, base } = await started();
    const body = multipartBody({ _csrf: 'forged', kind: 'pay_stub' }, { name: 'file', filename: 'a.pdf', type: 'application/pdf', bytes: await payStubPdf({ name: 'X', payDate: today() }) });
    const res = await t.app.inject({ method: 'POST', url: `${base}/upload/documents/files`, headers: { 'content-type': body.contentType, cookie: cookieHeader(agent.cookies) }, payload: body.payload });
    expect(res.statusCode).toBe(403);
    expect(await t.ctx.db.selectFrom('documents').select('doc_id').where('case_id', '=', s.case_id).execute()).toEqual([]);
  });

  it('lists uploaded files, removes one, and asks for a required document on Continue', async () => {
    const { s, agent, base } = await started();
    const page = `${base}/upload/documents`;
    const cont = await agent.post(page, {});
    expect(cont.statusCode).toBe(400);
    expect(cont.body).toContain('Upload your pay stub');
    const up = await upload(agent, `${page}/files`, page, 'pay_stub', { filename: 'paystub-march.pdf', bytes: await payStubPdf({ name: 'Jane Doe', payDate: today(), gross: '100.00' }) });
    expect(up.statusCode).toBe(303);
    const listed = await agent.get(up.headers.location as string);
    expect(listed.body).toContain('paystub-march.pdf has been uploaded.');
    expect(listed.body).toContain('Remove<span class="visually-hidden"> paystub-march.pdf</span>');
    const doc = await t.ctx.db.selectFrom('documents').select(['doc_id', 'status']).where('case_id', '=', s.case_id).executeTakeFirstOrThrow();
    // Queued for extraction the moment it landed.
    const jobs = await t.ctx.db.selectFrom('case_jobs').select(['kind', 'subject_id']).where('case_id', '=', s.case_id).where('kind', '=', 'document_processing').execute();
    expect(jobs).toEqual([{ kind: 'document_processing', subject_id: doc.doc_id }]);

    const removed = await agent.post(`${page}/remove`, { doc_id: doc.doc_id }, csrfOf(listed.body));
    expect(removed.statusCode).toBe(303);
    expect((await agent.get(removed.headers.location as string)).body).toContain('No files uploaded yet.');
    const after = await t.ctx.db.selectFrom('documents').select('status').where('doc_id', '=', doc.doc_id).executeTakeFirstOrThrow();
    expect(after.status).toBe('erased');
  });

  it('says what to do about a file that could not be read, and lets the applicant replace it before submitting', async () => {
    const { s, agent, base } = await started();
    await fillAboutYou(agent, base);
    const page = `${base}/upload/documents`;
    // A file that looks like a PDF but is not one: accepted by type, then unreadable.
    const broken = utf8('%PDF-1.7\nthis is not really a pdf\n%%EOF\n');
    expect((await upload(agent, `${page}/files`, page, 'pay_stub', { filename: 'scan.pdf', bytes: broken })).statusCode).toBe(303);
    await drainCaseJobs(t);
    const failed = await t.ctx.db.selectFrom('documents').select(['doc_id', 'status']).where('case_id', '=', s.case_id).executeTakeFirstOrThrow();
    expect(failed.status).toBe('failed');

    const shown = (await agent.get(page)).body;
    expect(shown).toContain('Could not be read');
    expect(shown).toContain('This file seems to be damaged, so we could not open it. Upload it again, or upload a PDF or a photo of the document instead.');
    expect(shown).toContain('<label class="label" for="replace-' + failed.doc_id + '">Replacement for scan.pdf</label>');
    expect(shown).toMatch(/<button[^>]*>Replace scan.pdf<\/button>/);
    // Not counted as the required document: Continue still asks for one, and so does the check page.
    expect((await agent.post(page, {})).body).toContain('Upload your pay stub');
    const check = (await agent.get(`${base}/check`)).body;
    expect(check).toMatch(/scan\.pdf <span class="muted small">[^<]*<\/span> <strong class="tag tag--danger">Could not be read<\/strong>/);

    const replace = async (file: { filename: string; bytes: Uint8Array }) => {
      const body = multipartBody({ _csrf: csrfOf((await agent.get(page)).body), kind: 'pay_stub', replaces: failed.doc_id }, { name: 'file', filename: file.filename, type: 'application/octet-stream', bytes: file.bytes });
      return t.app.inject({ method: 'POST', url: `${page}/files`, headers: { 'content-type': body.contentType, cookie: cookieHeader(agent.cookies) }, payload: body.payload });
    };
    // A refused replacement says so beside the file it would replace, and replaces nothing.
    const wrong = await replace({ filename: 'notes.txt', bytes: utf8('hello') });
    expect(wrong.statusCode).toBe(415);
    expect(wrong.body).toContain(`<a href="#replace-${failed.doc_id}">The selected file must be a PDF, PNG or JPG</a>`);
    expect(wrong.body).toMatch(new RegExp(`id="replace-${failed.doc_id}-error"`));

    const good = await replace({ filename: 'payslip.pdf', bytes: await payStubPdf({ name: 'Jane Doe', payDate: today(), gross: '100.00' }) });
    expect(good.statusCode).toBe(303);
    const docs = await t.ctx.db.selectFrom('documents').select(['doc_id', 'filename', 'status']).where('case_id', '=', s.case_id).orderBy('created_at').execute();
    expect(docs.map((d) => [d.filename, d.status])).toEqual([[null, 'erased'], ['payslip.pdf', 'uploaded']]);
    const after = (await agent.get(page)).body;
    expect(after).not.toContain('scan.pdf');
    expect(after).not.toContain('Could not be read');
    expect((await agent.post(page, {})).headers.location).toBe(`${base}/confirm/documents`);
  });

  it('runs the whole intake: answers, a PDF, check answers with Change links, one submission, status until done, return_url', async () => {
    const { s, agent, base } = await started('income_verification', { return_url: 'https://acme.example/done?ref=7' });
    await fillAboutYou(agent, base);
    const page = `${base}/upload/documents`;
    await upload(agent, `${page}/files`, page, 'pay_stub', { filename: 'paystub.pdf', bytes: await payStubPdf({ name: 'Jane Doe', payDate: today(), gross: '2,150.00' }) });
    const next = await agent.post(page, {});
    expect(next.headers.location).toBe(`${base}/confirm/documents`);

    const check = await agent.get(`${base}/check`);
    expect(check.body).toContain('Check your answers before submitting');
    expect(check.body).toContain('7 March 1990');
    expect(check.body).toContain('paystub.pdf');
    expect(check.body).toContain(`href="${base}/form/applicant?return=check"`);
    expect(check.body).toContain('Change<span class="visually-hidden"> Email address</span>');
    expect(check.body).toMatch(/<button[^>]*>Submit your answers<\/button>/);

    // A Change link comes back to the check page.
    const change = await agent.post(`${base}/form/applicant`, { return: 'check', full_name: 'Jane Doe', email: 'jane.doe@example.com', 'date_of_birth-day': '7', 'date_of_birth-month': '3', 'date_of_birth-year': '1990' });
    expect(change.headers.location).toBe(`${base}/check`);

    const csrf = csrfOf(check.body);
    const first = await agent.post(`${base}/submit`, {}, csrf);
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe(`${base}/status?sent=1`);
    const twice = await agent.post(`${base}/submit`, {}, csrf);
    expect(twice.headers.location).toBe(`${base}/status?already=1`);
    expect((await eventTypes(t, s.case_id)).filter((e) => e === 'intake.submitted')).toHaveLength(1);

    const processing = await agent.get(`${base}/status`);
    expect(processing.body).toContain('We’re reading your documents');
    expect(processing.body).toContain('role="status"');
    expect((await agent.get(`${base}/status.json`)).json()).toEqual({ stage: 'processing' });
    // The form is never shown again.
    expect((await agent.get(`${base}/form/applicant`)).headers.location).toBe(`${base}/status`);

    await drainCaseJobs(t);
    const done = await agent.get(`${base}/status`);
    // The case waits for an underwriter: the page says the answers were sent, never "All done" (issue 26).
    expect(done.body).toContain('Your answers have been sent');
    expect(done.body).not.toContain('All done');
    expect(done.body).toContain('An underwriter reviews your documents, usually within a working day.');
    const href = /href="(https:\/\/acme\.example\/done[^"]*)"/.exec(done.body)?.[1]?.replaceAll('&amp;', '&');
    const back = new URL(href!);
    expect(back.searchParams.get('ref')).toBe('7');
    expect(back.searchParams.get('session_id')).toBe(s.session_id);
    expect(back.searchParams.get('case_id')).toBe(s.case_id);
    expect(back.searchParams.get('status')).toBe('ready_for_review');

    const record = await readCase(t, ws, s.case_id);
    expect(record.runtime_status).toBe('ready_for_review');
    // The link opened again, later, in any browser, shows the status.
    const again = new ApplicantAgent(t);
    expect((await again.open(s.signed_url)).landing).toBe(`${base}/status`);
  });

  it('asks a follow-up question when a document lacks a required fact, and the answer moves the case on', async () => {
    const { s, agent, base } = await started();
    await fillAboutYou(agent, base);
    const page = `${base}/upload/documents`;
    await upload(agent, `${page}/files`, page, 'pay_stub', { filename: 'payslip.pdf', bytes: await payStubPdf({ name: 'Jane Doe', payDate: today() }) });
    await agent.post(`${base}/submit`, {}, csrfOf((await agent.get(`${base}/check`)).body));
    await drainCaseJobs(t);

    const landing = await agent.get(`${base}/status`);
    expect(landing.headers.location).toBe(`${base}/follow-ups`);
    const questions = await agent.get(`${base}/follow-ups`);
    expect(questions.body).toContain('We could not read the gross pay on payslip.pdf.');
    expect(questions.body).toMatch(/<label class="label" for="gross_pay">Gross pay<\/label>/);
    const blank = await agent.post(`${base}/follow-ups`, { gross_pay: '' }, csrfOf(questions.body));
    expect(blank.statusCode).toBe(400);
    expect(blank.body).toContain('Enter your gross pay');
    const answered = await agent.post(`${base}/follow-ups`, { gross_pay: '2,150.00' }, csrfOf(questions.body));
    expect(answered.headers.location).toBe(`${base}/status?sent=1`);
    await drainCaseJobs(t);
    const record = await readCase(t, ws, s.case_id);
    expect(record.runtime_status).toBe('ready_for_review');
    const gross = (record.workspace.facts as Array<{ fact_id: string; value: string; source: string }>).find((f) => f.fact_id === 'gross_pay');
    expect(gross).toMatchObject({ value: '2150.00', source: 'applicant_follow_up' });
  });
});
