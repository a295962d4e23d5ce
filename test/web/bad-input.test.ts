import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/logging.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { ApplicantAgent } from '../support/applicant.ts';
import { cookieHeader, csrfOf, form, FORM, newOperator, signInOperator } from '../support/web.ts';

/**
 * Issue 23 §5: NUL in a path, query or form field of the web faces reached PostgreSQL (which
 * refuses it in text) and came back as a 500, and the error log quoted the applicant's answers
 * from the driver's `where`. The faces now apply the API's rules (404 for an impossible id, 400
 * for NUL in a field) before any hook looks anything up, and the log drops the driver's detail.
 */
function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger('info', stream), text: () => lines.join('') };
}

describeEachBackend('web faces: impossible ids and NUL (issue 23 §5)', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let cookie: string;
  const log = capture();
  beforeAll(async () => {
    t = await createTestApp(backend, { logger: log.logger });
    ws = await t.workspace({ name: 'Acme Lending' });
    await withExampleCaseTypes(t, ws.orgId);
    const admin = await newOperator(t, ws.orgId, 'admin');
    cookie = (await signInOperator(t, admin.email, admin.password)).cookie;
  });
  afterAll(() => t.close());

  it('regression: answers the dashboard addresses of the issue with 404 and 400 pages, never a 500', async () => {
    for (const [url, status] of [
      ['/dashboard/cases/%00', 404],
      ['/dashboard/cases/%00/erasure', 404],
      ['/dashboard/developers/case-types/%00', 404],
      ['/dashboard/developers/webhooks/ep%01x', 404],
      [`/dashboard/developers/keys/${'k'.repeat(300)}/revoke`, 404],
      ['/dashboard/developers/notifications?starting_after=%00', 400],
      ['/dashboard/cases?status=%00', 400],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url, headers: { cookie } });
      expect(res.statusCode, url).toBe(status);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
    }
  });

  it('regression: refuses NUL in a dashboard form field with a 400 page, signed in or not', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/dashboard/developers/notifications', headers: { cookie } });
    const read = await t.app.inject({ method: 'POST', url: '/dashboard/developers/notifications/read', headers: { ...FORM, cookie }, payload: form({ _csrf: csrfOf(page.body), id: 'ntf_\u0000' }) });
    expect(read.statusCode).toBe(400);
    expect(read.body).toContain('not allowed (NUL)');
    const login = await t.app.inject({ method: 'GET', url: '/dashboard/login' });
    const signIn = await t.app.inject({
      method: 'POST',
      url: '/dashboard/login',
      headers: { ...FORM, cookie: login.cookies.map((c) => `${c.name}=${c.value}`).join('; ') },
      payload: form({ _csrf: csrfOf(login.body), email: 'a\u0000@example.com', password: 'x' }),
    });
    expect(signIn.statusCode).toBe(400);
  });

  it('regression: refuses an applicant answer holding NUL with a 400 page in their language, and logs no answer', async () => {
    const s = await newSession(t, ws, 'income_verification', { locale: 'fr' });
    const agent = new ApplicantAgent(t);
    await agent.open(s.signed_url);
    const res = await agent.post(`/app/s/${s.session_id}/form/applicant`, { full_name: 'Jane\u0000Doe', email: 'jane@example.com', 'date_of_birth-day': '7', 'date_of_birth-month': '3', 'date_of_birth-year': '1990' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Nous n’avons pas pu lire votre envoi');
    for (const url of [`/app/s/%00`, `/app/s/${s.session_id}/form/%00`, `/app/s/${s.session_id}/upload/${'n'.repeat(400)}`]) {
      expect((await t.app.inject({ method: 'GET', url, headers: { cookie: cookieHeader(agent.cookies) } })).statusCode, url).toBe(404);
    }
    expect((await t.app.inject({ method: 'GET', url: `/app/s/${s.session_id}/tasks?return=%00`, headers: { cookie: cookieHeader(agent.cookies) } })).statusCode).toBe(400);
    // The answer was never written, and nothing failed loudly enough to log it.
    const answers = await t.ctx.db.selectFrom('cases').select('structured_inputs').where('case_id', '=', s.case_id).executeTakeFirstOrThrow();
    expect(JSON.stringify(answers)).not.toContain('Jane');
    expect(log.text()).not.toContain('Jane');
    expect(log.text()).not.toMatch(/"level":50/);
  });

  it("regression: logs a driver error with its message and stack but without the row it quotes (the server's detail and where, PGlite's params)", async () => {
    const { logger, text } = capture();
    const answers = JSON.stringify({ secret_word: 'swordfish', full_name: 'Jane\u0000Doe' });
    const err = await sql`select ${answers}::jsonb`.execute(t.ctx.db).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    // The driver does carry the row: the point is that the log does not.
    expect(JSON.stringify({ ...(err as object) })).toContain('swordfish');
    logger.error({ err }, 'page failed');
    const out = text();
    expect(out).not.toContain('swordfish');
    expect(out).not.toContain('Jane');
    expect(out).toContain('"where":"[redacted]"');
    expect(out).toContain('"code":"22P05"');
    // What failed stays readable: the formatter used to drop an error's message and stack.
    expect(out).toContain('"message":"unsupported Unicode escape sequence"');
    expect(out).toContain('"stack":"');
  });
});
