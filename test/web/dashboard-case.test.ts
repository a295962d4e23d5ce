import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.ts';
import { createTestApp, until, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { describeEachStore } from '../support/object-store.ts';
import { withExampleCaseTypes } from '../support/fixtures.ts';
import { csrfOf, form, FORM, newOperator, signInOperator } from '../support/web.ts';
import { readCase } from '../engine/engine-fixtures.ts';
import { startDocumentServer } from '../documents/document-server.ts';
import { addEndpoint, startDeliveries, startReceiver, verifySignatures, type Receiver, type RunningDeliveries } from '../webhooks/fixtures.ts';
import { payStubPdf, processedCase } from './console-fixtures.ts';
import { savePageImagesOfLiveDocument } from '../../src/storage/page-images.ts';
import { timeText } from '../../src/web/dashboard/cases/format.ts';
import { dashboardAgent } from '../support/dashboard-agent.ts';

describeEachStore('dashboard case page and operator actions', (backend, _store, storeEnv) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let docs: Awaited<ReturnType<typeof startDocumentServer>>;
  let receiver: Receiver;
  let deliveries: RunningDeliveries;
  let secret: string;
  let cookie: string;
  let operatorId: string;
  const clock = new ManualClock('2026-06-15T12:00:00.000Z');

  beforeAll(async () => {
    docs = await startDocumentServer({ '/stub.pdf': { body: await payStubPdf(2), type: 'application/pdf' } });
    receiver = await startReceiver();
    t = await createTestApp(backend, { clock, env: { ...(await storeEnv()), DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' } });
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
    secret = (await addEndpoint(t.ctx, ws.orgId, receiver.url, ['v1.case.completed'])).signing_secret;
    deliveries = startDeliveries(t.ctx, backend);
    const op = await newOperator(t, ws.orgId, 'reviewer');
    operatorId = op.operator_id;
    cookie = (await signInOperator(t, op.email, op.password)).cookie;
  }, 60_000);
  afterAll(async () => {
    await deliveries?.stop();
    await t?.close();
    await docs?.close();
    await receiver?.close();
  });

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });
  const post = async (page: string, url: string, fields: Record<string, string>) => {
    const csrf = csrfOf((await get(page)).body);
    return t.app.inject({ method: 'POST', url, headers: { ...FORM, cookie }, payload: form({ _csrf: csrf, ...fields }) });
  };

  it('shows the header, the blocking fact first with its page image and the quote marked at its offsets', async () => {
    const { caseId, docId } = await processedCase(t, ws, docs.url('/stub.pdf'), 'loan-100');
    const res = await get(`/dashboard/cases/${caseId}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).toContain('Ready for review');
    expect(res.body).toContain('loan-100');
    expect(res.body).toContain('System of action');
    expect(res.body).toContain('Not started: it starts when the case completes');
    // The failed name check makes the employee name blocking: it comes first and is selected.
    const labels = [...res.body.matchAll(/<h3 class="fact__label">([^<]+)<\/h3>/g)].map((m) => m[1]);
    expect(labels[0]).toBe('Employee name');
    expect(res.body).toContain('Evidence for Employee name');
    // Values for people (issue 27 §1): the amount with the currency of its quote, the date in words,
    // the match in words, the name check as a sentence; the raw forms stay in titles and details.
    expect(res.body).toMatch(/title="Stored as 2450.00">\$2,450.00</);
    expect(res.body).toMatch(/title="Stored as 2026-06-05">5 June 2026</);
    expect(res.body).toContain('Exact match');
    expect(res.body).toContain('The value does not match the applicant’s answer (full name)');
    // The documents table names the kind in words and keeps the document's id out of the text.
    const documents = res.body.slice(res.body.indexOf('id="documents-title"'), res.body.indexOf('id="timeline-title"'));
    expect(documents).toContain('Pay stub');
    expect(documents).not.toMatch(/>[^<]*\bpay_stub\b[^<]*</);
    expect(documents).not.toMatch(new RegExp(`>[^<]*${docId}[^<]*<`));
    // The applicant's own answers, and beside the fact compared with one of them, both values.
    expect(res.body).toContain('The applicant’s answers');
    expect(res.body).toMatch(/Typed: <strong>John Smith<\/strong> · On the document: <strong>Jane Doe<\/strong> · <strong class="tag[^"]*">No match</);
    expect(res.body).toContain('<mark class="quote" id="quote">Jane Doe</mark>');
    // The evidence's box (PDF points, y down) is drawn over the page, inside it.
    const box = /<rect class="evidence-box" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/.exec(res.body);
    expect(box, 'an evidence box').not.toBeNull();
    const [x, y, w, h] = box!.slice(1).map(Number) as [number, number, number, number];
    expect(x).toBeGreaterThan(50);
    expect(x + w).toBeLessThan(595);
    expect(y).toBeGreaterThan(0);
    expect(y + h).toBeLessThan(842);
    expect(res.body).toContain(`/dashboard/cases/${caseId}/documents/${docId}/pages/1`);
    const image = await get(`/dashboard/cases/${caseId}/documents/${docId}/pages/1`);
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/jpeg');
    expect([...image.rawPayload.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    // Rendered once: the stored copy answers the next request.
    const cached = await t.ctx.db.selectFrom('document_page_images').select(['page_index', 'width_px', 'page_width']).where('doc_id', '=', docId).execute();
    expect(cached).toEqual([{ page_index: 0, width_px: 893, page_width: 595 }]);
    expect((await get(`/dashboard/cases/${caseId}/documents/${docId}/pages/1`)).rawPayload.equals(image.rawPayload)).toBe(true);
    // Page navigation, zoom and the original file.
    const page2 = await get(`/dashboard/cases/${caseId}?fact=employee_name&page=2&zoom=150`);
    expect(page2.body).toContain('page 2 of 3');
    expect(page2.body).toContain('page-view__page--z150');
    expect(page2.body).not.toContain('<mark');
    const file = await get(`/dashboard/cases/${caseId}/documents/${docId}/file`);
    expect(file.headers['content-disposition']).toContain('attachment');
    expect(file.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect((await get(`/dashboard/cases/${caseId}/documents/${docId}/pages/99`)).statusCode).toBe(404);
  });

  it('corrects a fact through correctFact, keeps the history visible and records the operator', async () => {
    const { caseId, docId } = await processedCase(t, ws, docs.url('/stub.pdf'), 'loan-101');
    const page = `/dashboard/cases/${caseId}`;
    const missing = await post(page, `${page}/facts/gross_pay`, { value: '2500.00', reason: '' });
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('Enter the reason for the correction');
    expect(missing.body).toContain('value="2500.00"');
    // The address the problems were shown at answers a reload or a shared link: it leads to the
    // case page with the fact selected, never 404 (issue 27 §6).
    const reopened = await get(`${page}/facts/gross_pay`);
    expect(reopened.statusCode).toBe(303);
    expect(reopened.headers.location).toBe(`${page}?fact=gross_pay#fact-gross_pay`);
    const landed = await get(String(reopened.headers.location));
    expect(landed.statusCode).toBe(200);
    expect(landed.body).toMatch(/<li class="fact fact--selected[^"]*" id="fact-gross_pay"/);
    expect((await get(`/dashboard/cases/case_nope/facts/gross_pay`)).headers.location).toBe('/dashboard/cases/case_nope?fact=gross_pay#fact-gross_pay');
    const done = await post(page, `${page}/facts/gross_pay`, { value: '2500.00', reason: 'Checked against the bank statement' });
    expect(done.statusCode).toBe(303);
    const after = await get(done.headers.location as string);
    expect(after.body).toContain('Correction saved');
    expect(after.body).toContain('Checked against the bank statement');
    expect(after.body).toMatch(/<del><span class="visually-hidden">was <\/span>2450.00<\/del>/);
    // Issue 27 §2: the viewer keeps showing the page and quote the replaced value was read from.
    expect(after.body).toContain('Evidence for Gross pay');
    expect(after.body).toContain('Original evidence (before the correction)');
    expect(after.body).not.toContain('is not available');
    expect(after.body).toContain('<mark class="quote" id="quote">$2,450.00</mark>');
    expect(after.body).toContain(`/dashboard/cases/${caseId}/documents/${docId}/pages/1`);
    expect(after.body).toMatch(/<rect class="evidence-box"/);
    const api = await readCase(t, ws, caseId);
    // The API's fact carries no evidence for a value no document gave; the correction keeps it.
    expect(api.workspace.facts.find((f: { fact_id: string }) => f.fact_id === 'gross_pay')).toMatchObject({ value: '2500.00', source: 'operator', evidence: [] });
    const kept = await t.ctx.db.selectFrom('fact_corrections').select('previous_evidence').where('case_id', '=', caseId).where('fact_id', '=', 'gross_pay').executeTakeFirstOrThrow();
    expect(kept.previous_evidence).toMatchObject([{ doc_id: docId, page_index: 0, quote: '$2,450.00' }]);
    const event = await t.ctx.db.selectFrom('case_events').select('data').where('case_id', '=', caseId).where('event_type', '=', 'fact.corrected').executeTakeFirstOrThrow();
    expect(event.data).toMatchObject({ fact_id: 'gross_pay', actor: operatorId });
  });

  it('approves through decideCase: the API reads it complete and the receiver gets the signed v1.case.completed', async () => {
    const { caseId } = await processedCase(t, ws, docs.url('/stub.pdf'), 'loan-102');
    const page = `/dashboard/cases/${caseId}`;
    // Rejecting needs a reason; approving does not (issue 27 §4).
    const noReason = await post(page, `${page}/decision`, { decision: 'reject', reason: '' });
    expect(noReason.statusCode).toBe(400);
    expect(noReason.body).toContain('Enter the reason you reject this case');
    const approved = await post(page, `${page}/decision`, { decision: 'approve', reason: 'Name differs only by a nickname; employer confirmed' });
    expect(approved.statusCode).toBe(303);
    const c = await readCase(t, ws, caseId);
    expect(c).toMatchObject({ runtime_status: 'complete', case_status: 'approved' });
    const delivered = await until(() => receiver.requests.find((r) => JSON.parse(r.rawBody).case_id === caseId));
    verifySignatures(delivered, secret, Math.floor(clock.now().getTime() / 1000));
    expect(JSON.parse(delivered.rawBody)).toMatchObject({ event_type: 'v1.case.completed', case_id: caseId, external_case_id: 'loan-102', data: { case_status: 'approved' } });
    const decided = await t.ctx.db.selectFrom('case_events').select('data').where('case_id', '=', caseId).where('event_type', '=', 'case.decided').executeTakeFirstOrThrow();
    expect(decided.data).toEqual({ decision: 'approve', actor: operatorId });
    const shown = await get(approved.headers.location as string);
    expect(shown.body).toContain('Case approved');
    expect(shown.body).not.toContain('Not started: it starts when the case completes');
    expect(shown.body).toMatch(/<dt[^>]*>Handoff<\/dt>/);
    // The timeline in words, the raw event type in its details (issue 27 §4).
    expect(shown.body).toMatch(/Approved by <strong>op-/);
    expect(shown.body).toContain('Status: Checks running → Ready for review');
    expect(shown.body).toContain('<code>case.decided</code>');
    // A second decision is refused with a page, not a server error.
    const again = await post(page, `${page}/decision`, { decision: 'reject', reason: 'again', confirmed: 'yes' });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('is already complete (approved)');
  });

  it('says where the handoff stands in words, and links its delivery for admins only (issue 27 §4)', async () => {
    const { caseId } = await processedCase(t, ws, docs.url('/stub.pdf'), 'loan-140');
    const page = `/dashboard/cases/${caseId}`;
    const admin = await newOperator(t, ws.orgId, 'admin');
    const adminAgent = await dashboardAgent(t, admin.email, admin.password);
    const words = (body: string) => body.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');
    const handoffRow = (body: string) => words(/<dt class="summary-list__key">Handoff<\/dt>\s*<dd class="summary-list__value">([\s\S]*?)<\/dd>/.exec(body)?.[1] ?? 'no handoff row');
    const noRawState = (body: string) => {
      for (const raw of ['dispatching', 'dispatch_failed', 'retry_scheduled', 'Dispatch failed']) expect(handoffRow(body), raw).not.toContain(raw);
    };
    // The receiver refuses this case's handoff: a retry is scheduled.
    receiver.respond((r) => (JSON.parse(r.rawBody).case_id === caseId ? { status: 500, body: 'down' } : { status: 200, body: 'ok' }));
    try {
      expect((await post(page, `${page}/decision`, { decision: 'approve', reason: '' })).statusCode).toBe(303);
      const row = await until(() =>
        t.ctx.db.selectFrom('webhook_deliveries').select(['delivery_id', 'endpoint_id', 'next_attempt_at']).where('case_id', '=', caseId).where('status', '=', 'retry_scheduled').executeTakeFirst(),
      );
      const deliveryLink = `/dashboard/developers/webhooks/${row.endpoint_id}/deliveries/${row.delivery_id}`;
      const retrying = await get(page);
      const next = timeText(row.next_attempt_at!);
      expect(handoffRow(retrying.body)).toMatch(new RegExp(`^Being delivered to ${receiver.url.replace(/[.?]/g, '\\$&')} \\(attempt 2 of \\d+, next try at ${next}\\) · the last attempt was answered 500`));
      noRawState(retrying.body);
      // A reviewer cannot open developer settings: the delivery's id to quote, no link.
      expect(retrying.body).not.toContain(deliveryLink);
      expect(handoffRow(retrying.body)).toContain(`(delivery ${row.delivery_id})`);
      const asAdmin = await adminAgent.get(page);
      expect(asAdmin.body).toContain(`<a href="${deliveryLink}">View the delivery<span class="visually-hidden"> ${row.delivery_id}</span></a>`);
      expect((await adminAgent.get(deliveryLink)).statusCode).toBe(200);
      const max = Number(/attempt 2 of (\d+)/.exec(handoffRow(retrying.body))![1]);

      // Every attempt spent: the delivery failed.
      await t.ctx.db.updateTable('webhook_deliveries').set({ status: 'failed', attempt_count: max, next_attempt_at: null, failed_at: clock.now() }).where('delivery_id', '=', row.delivery_id).execute();
      await t.ctx.db.updateTable('cases').set({ handoff_state: 'dispatch_failed' }).where('case_id', '=', caseId).execute();
      const failed = await get(page);
      expect(handoffRow(failed.body)).toContain(`Delivery to ${receiver.url} failed after ${max} attempts · the last attempt was answered 500`);
      noRawState(failed.body);

      // An admin retries it from its page; the receiver takes it.
      receiver.respond(() => ({ status: 200, body: 'ok' }));
      expect((await adminAgent.post(`${deliveryLink}/retry`, {}, (await adminAgent.get(deliveryLink)).body)).statusCode).toBe(303);
      await until(() => t.ctx.db.selectFrom('webhook_deliveries').select('status').where('delivery_id', '=', row.delivery_id).where('status', '=', 'delivered').executeTakeFirst());
      const delivered = await get(page);
      expect(handoffRow(delivered.body)).toContain(`Delivered to ${receiver.url} at ${timeText(clock.now())} · waiting for acknowledgement`);

      // The customer's system acknowledges it.
      const ack = await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/deliveries/${row.delivery_id}/ack`, headers: { authorization: `Bearer ${ws.key}` } });
      expect(ack.statusCode, ack.body).toBe(200);
      const acknowledged = await get(page);
      expect(handoffRow(acknowledged.body)).toContain(`Acknowledged at ${timeText(clock.now())} · delivered to ${receiver.url} at ${timeText(clock.now())}`);
      noRawState(acknowledged.body);
    } finally {
      receiver.respond(() => ({ status: 200, body: 'ok' }));
    }
  });

  it('approves without a reason, and rejects only with one, confirmed on a page of ours (issue 27 §4)', async () => {
    const first = await processedCase(t, ws, docs.url('/stub.pdf'), 'loan-131');
    const approved = await post(`/dashboard/cases/${first.caseId}`, `/dashboard/cases/${first.caseId}/decision`, { decision: 'approve', reason: '' });
    expect(approved.statusCode).toBe(303);
    expect(await readCase(t, ws, first.caseId)).toMatchObject({ runtime_status: 'complete', case_status: 'approved' });

    const { caseId } = await processedCase(t, ws, docs.url('/stub.pdf'), 'loan-132');
    const page = `/dashboard/cases/${caseId}`;
    const asked = await post(page, `${page}/decision`, { decision: 'reject', reason: 'Pay stub is for another person' });
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('<h1>Reject this case?</h1>');
    expect(asked.body).toContain('Pay stub is for another person');
    expect(asked.body).not.toContain('data-confirm');
    expect((await readCase(t, ws, caseId)).runtime_status).toBe('ready_for_review');
    const rejected = await post(page, `${page}/decision`, { decision: 'reject', reason: 'Pay stub is for another person', confirmed: 'yes' });
    expect(rejected.statusCode).toBe(303);
    expect(await readCase(t, ws, caseId)).toMatchObject({ runtime_status: 'complete', case_status: 'rejected' });
    const shown = await get(rejected.headers.location as string);
    expect(shown.body).toContain('Reason given by');
    expect(shown.body).toContain('Pay stub is for another person');
  });

  it('regression: refuses erasure to a reviewer (403, nothing erased) and shows them no Erase link; an admin sees them (issue 23 §6)', async () => {
    const { caseId, docId } = await processedCase(t, ws, docs.url('/stub.pdf'), 'loan-106');
    const page = `/dashboard/cases/${caseId}`;
    const shown = await get(page);
    expect(shown.statusCode).toBe(200);
    expect(shown.body).not.toContain('/erasure');
    expect((await get(`${page}/erasure?doc=${docId}`)).statusCode).toBe(403);
    for (const fields of [{ doc: docId }, {}] as Record<string, string>[]) {
      const res = await post(page, `${page}/erasure`, fields);
      expect(res.statusCode).toBe(403);
      expect(res.body).toContain('for workspace admins');
    }
    const doc = await t.ctx.db.selectFrom('documents').select('status').where('doc_id', '=', docId).executeTakeFirstOrThrow();
    expect(doc.status).not.toBe('erased');
    expect(await t.ctx.db.selectFrom('case_events').select('event_type').where('case_id', '=', caseId).where('event_type', '=', 'document.erased').execute()).toEqual([]);
    const admin = await newOperator(t, ws.orgId, 'admin');
    const adminCookie = (await signInOperator(t, admin.email, admin.password)).cookie;
    const adminPage = await t.app.inject({ method: 'GET', url: page, headers: { cookie: adminCookie } });
    expect(adminPage.body).toContain(`${page}/erasure?doc=${docId}`);
    expect(adminPage.body).toContain('Erase the whole case');
  });

  it('erases one document behind a confirmation that names it, with its page images (an admin)', async () => {
    const { caseId, docId } = await processedCase(t, ws, docs.url('/stub.pdf'), 'loan-103');
    const admin = await newOperator(t, ws.orgId, 'admin');
    const adminCookie = (await signInOperator(t, admin.email, admin.password)).cookie;
    const asAdmin = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: adminCookie } });
    const page = `/dashboard/cases/${caseId}`;
    await get(`${page}/documents/${docId}/pages/1`);
    // A corrected fact keeps the evidence of its replaced value, until the document is erased.
    expect((await post(page, `${page}/facts/gross_pay`, { value: '2500.00', reason: 'Bank statement' })).statusCode).toBe(303);
    expect((await get(`${page}?fact=gross_pay`)).body).toContain('Original evidence (before the correction)');
    const confirm = await asAdmin(`${page}/erasure?doc=${docId}`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('Erase pay-stub.pdf?');
    expect(confirm.body).toContain('(pay stub), its page text and page images');
    expect(confirm.body).not.toMatch(new RegExp(`>[^<]*${docId}[^<]*<`));
    expect(confirm.body).toContain('Employee name');
    const erased = await t.app.inject({ method: 'POST', url: `${page}/erasure`, headers: { ...FORM, cookie: adminCookie }, payload: form({ _csrf: csrfOf(confirm.body), doc: docId }) });
    expect(erased.statusCode).toBe(303);
    expect(await t.ctx.db.selectFrom('document_page_images').select('doc_id').where('doc_id', '=', docId).execute()).toEqual([]);
    // Pages drawn ahead of time that arrive after the erasure are not stored.
    const late = { doc_id: docId, page_index: 1, content_type: 'image/jpeg', width_px: 1, height_px: 1, page_width: 1, page_height: 1, page_unit: 'pt' as const, created_at: new Date(), bytes: Buffer.from([0xff]) };
    expect(await savePageImagesOfLiveDocument(t.ctx.db, { orgId: ws.orgId, environment: 'test' }, docId, [late])).toBe(false);
    expect(await t.ctx.db.selectFrom('document_page_images').select('doc_id').where('doc_id', '=', docId).execute()).toEqual([]);
    expect((await get(`${page}/documents/${docId}/pages/1`)).statusCode).toBe(404);
    expect((await get(`${page}/documents/${docId}/file`)).statusCode).toBe(404);
    const event = await t.ctx.db.selectFrom('case_events').select('data').where('case_id', '=', caseId).where('event_type', '=', 'document.erased').executeTakeFirstOrThrow();
    expect(event.data).toMatchObject({ doc_id: docId, actor: admin.operator_id });
    expect((await get(page)).body).toContain('Erased');
    expect(await t.ctx.db.selectFrom('fact_corrections').select('previous_evidence').where('case_id', '=', caseId).execute()).toEqual([{ previous_evidence: [] }]);
    const corrected = (await get(`${page}?fact=gross_pay`)).body;
    expect(corrected).not.toContain('Original evidence');
    expect(corrected).not.toContain('$2,450.00');
  });

  it('serves the package and the sealed case file, and refuses other workspaces’ cases', async () => {
    const { caseId } = await processedCase(t, ws, docs.url('/stub.pdf'), 'loan-104');
    const pkg = await get(`/dashboard/cases/${caseId}/package`);
    expect(pkg.json()).toMatchObject({ case_id: caseId });
    const pdf = await get(`/dashboard/cases/${caseId}/case-file`);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const other = await t.workspace();
    const stranger = await newOperator(t, other.orgId, 'admin');
    const strangerCookie = (await signInOperator(t, stranger.email, stranger.password)).cookie;
    expect((await t.app.inject({ method: 'GET', url: `/dashboard/cases/${caseId}`, headers: { cookie: strangerCookie } })).statusCode).toBe(404);
  });

  it('refuses a case action without the session’s CSRF token', async () => {
    const { caseId } = await processedCase(t, ws, docs.url('/stub.pdf'), 'loan-105');
    const res = await t.app.inject({ method: 'POST', url: `/dashboard/cases/${caseId}/decision`, headers: { ...FORM, cookie }, payload: form({ decision: 'approve', reason: 'no token' }) });
    expect(res.statusCode).toBe(403);
    expect((await readCase(t, ws, caseId)).runtime_status).toBe('ready_for_review');
  });
});
