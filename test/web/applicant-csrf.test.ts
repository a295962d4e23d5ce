import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { ApplicantAgent, multipartBody } from '../support/applicant.ts';
import { cookieHeader, csrfOf, form } from '../support/web.ts';
import { textPdf } from '../extraction/helpers.ts';

/**
 * Issue 23 §3: the applicant app skipped its CSRF hook for multipart bodies, and only the upload
 * route checked the token itself, so a multipart `POST …/submit` with the session cookie and no
 * token submitted the case. Every applicant POST route, taken from Fastify's route table so a new
 * one is walked without editing this test, is sent every encoding a cross-site form (or a script
 * with the cookie) can produce, without `_csrf`: each must answer 403 and change nothing.
 */
const FIELDS = {
  full_name: 'Mallory',
  email: 'mallory@example.com',
  'date_of_birth-day': '1',
  'date_of_birth-month': '1',
  'date_of_birth-year': '1980',
  doc_id: 'doc_x',
  kind: 'pay_stub',
  return: 'check',
};

function encodings(): Array<{ name: string; contentType: string; payload: string | Buffer }> {
  const multipart = multipartBody(FIELDS, { name: 'file', filename: 'forged.pdf', type: 'application/pdf', bytes: new TextEncoder().encode('%PDF-1.7\n%%EOF\n') });
  return [
    { name: 'urlencoded', contentType: 'application/x-www-form-urlencoded', payload: form(FIELDS) },
    { name: 'multipart', contentType: multipart.contentType, payload: multipart.payload },
    { name: 'json', contentType: 'application/json', payload: JSON.stringify(FIELDS) },
    { name: 'text/plain', contentType: 'text/plain', payload: Object.entries(FIELDS).map(([k, v]) => `${k}=${v}`).join('\r\n') },
  ];
}

function payStub(payDate: string) {
  return textPdf([
    { text: 'ACME MANUFACTURING LTD', y: 780 },
    { text: 'Employee name: Jane Doe', y: 740 },
    { text: `Pay date: ${payDate}`, y: 720 },
    { text: 'Gross pay: $100.00', y: 700 },
  ]);
}

describeEachBackend('applicant app: CSRF on every POST whatever its encoding (issue 23 §3)', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  const routes: RouteOptions[] = [];
  beforeAll(async () => {
    t = await createTestApp(backend, { onRoute: (route) => routes.push(route) });
    ws = await t.workspace({ name: 'Acme Lending' });
    await withExampleCaseTypes(t, ws.orgId);
  });
  afterAll(() => t.close());

  /** Everything a forged POST could move: the case, its session, its documents. */
  async function stateOf(caseId: string, sessionId: string) {
    const kase = await t.ctx.db.selectFrom('cases').select(['runtime_status', 'case_status', 'current_node_id', 'last_event_cursor', 'structured_inputs', 'updated_at']).where('case_id', '=', caseId).executeTakeFirstOrThrow();
    const session = await t.ctx.db.selectFrom('sessions').select(['status', 'submitted_at']).where('session_id', '=', sessionId).executeTakeFirstOrThrow();
    const documents = await t.ctx.db.selectFrom('documents').select(['doc_id', 'status']).where('case_id', '=', caseId).orderBy('doc_id').execute();
    return { kase, session, documents };
  }

  it('regression: a POST without _csrf is refused 403 on every applicant POST route, in every encoding, and moves nothing', async () => {
    // A session one click from submitting: a forged submit that got through would move the case.
    const s = await newSession(t, ws, 'income_verification');
    const agent = new ApplicantAgent(t);
    await agent.open(s.signed_url);
    const base = `/app/s/${s.session_id}`;
    expect((await agent.post(`${base}/form/applicant`, { full_name: 'Jane Doe', email: 'jane@example.com', 'date_of_birth-day': '7', 'date_of_birth-month': '3', 'date_of_birth-year': '1990' })).statusCode).toBe(303);
    const uploadPage = `${base}/upload/documents`;
    const upload = multipartBody({ _csrf: csrfOf((await agent.get(uploadPage)).body), kind: 'pay_stub' }, { name: 'file', filename: 'pay.pdf', type: 'application/pdf', bytes: await payStub(t.clock.now().toISOString().slice(0, 10)) });
    const uploaded = await t.app.inject({ method: 'POST', url: `${uploadPage}/files`, headers: { 'content-type': upload.contentType, cookie: cookieHeader(agent.cookies) }, payload: upload.payload });
    expect(uploaded.statusCode).toBe(303);
    const docId = (await t.ctx.db.selectFrom('documents').select('doc_id').where('case_id', '=', s.case_id).executeTakeFirstOrThrow()).doc_id;

    const posts = [...new Map(routes.filter((r) => r.config?.auth === 'applicant' && [r.method].flat().includes('POST')).map((r) => [r.url, r])).values()];
    expect(posts.map((r) => r.url)).toEqual(expect.arrayContaining(['/app/s/:sessionId/submit', '/app/s/:sessionId/form/:nodeId', '/app/s/:sessionId/upload/:nodeId/files']));
    // A new path parameter must be given a value here, or the route would be walked with a placeholder.
    const paramValues: Record<string, string[]> = { sessionId: [s.session_id], nodeId: ['applicant', 'documents'] };

    const before = await stateOf(s.case_id, s.session_id);
    const refused: string[] = [];
    for (const route of posts) {
      const names = [...route.url.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);
      for (const name of names) expect(paramValues[name], `a value for :${name} of ${route.url}`).toBeDefined();
      const urls = names.reduce<string[]>((acc, name) => acc.flatMap((u) => paramValues[name]!.map((v) => u.replace(`:${name}`, v))), [route.url]);
      for (const url of urls) {
        for (const encoding of encodings()) {
          const payload = typeof encoding.payload === 'string' ? encoding.payload.replace('doc_x', docId) : encoding.payload;
          const res = await t.app.inject({ method: 'POST', url, headers: { 'content-type': encoding.contentType, cookie: cookieHeader(agent.cookies) }, payload });
          expect(res.statusCode, `${encoding.name} ${url}: ${res.body.slice(0, 200)}`).toBe(403);
          refused.push(`${encoding.name} ${url}`);
        }
      }
    }
    expect(refused.length).toBeGreaterThanOrEqual(posts.length * 4);
    expect(await stateOf(s.case_id, s.session_id)).toEqual(before);

    // The same submit with the page's token goes through: the refusals above were the token's doing.
    const submitted = await agent.post(`${base}/submit`, {}, csrfOf((await agent.get(`${base}/check`)).body));
    expect(submitted.statusCode).toBe(303);
    expect((await stateOf(s.case_id, s.session_id)).session.status).toBe('submitted');
  });

  it('keeps the upload route reading its token from the multipart stream, and refuses a token it cannot read', async () => {
    const s = await newSession(t, ws, 'income_verification');
    const agent = new ApplicantAgent(t);
    await agent.open(s.signed_url);
    const page = `/app/s/${s.session_id}/upload/documents`;
    const csrf = csrfOf((await agent.get(page)).body);
    // A token in a body the route cannot read (multipart to a URL-encoded route) is no token.
    const remove = multipartBody({ _csrf: csrf, doc_id: 'doc_x' });
    const res = await t.app.inject({ method: 'POST', url: `${page}/remove`, headers: { 'content-type': remove.contentType, cookie: cookieHeader(agent.cookies) }, payload: remove.payload });
    expect(res.statusCode).toBe(403);
    // And a URL-encoded post to the upload route, even with the token, carries no file.
    const plain = await t.app.inject({ method: 'POST', url: `${page}/files`, headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(agent.cookies) }, payload: form({ _csrf: csrf, kind: 'pay_stub' }) });
    expect(plain.statusCode).toBe(403);
  });
});
