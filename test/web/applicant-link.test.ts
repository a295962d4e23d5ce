import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { ApplicantAgent, linkPath } from '../support/applicant.ts';
import { cookieHeader, csrfOf, form, FORM } from '../support/web.ts';

describeEachBackend('applicant app: the signed link, its cookie and the first form step', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  const clock = new ManualClock('2026-03-02T09:00:00.000Z');
  beforeAll(async () => {
    t = await createTestApp(backend, { clock });
    ws = await t.workspace({ name: 'Acme Lending' });
    await withExampleCaseTypes(t, ws.orgId);
  });
  afterAll(() => t.close());

  it('takes the token out of the address into an HttpOnly, Lax cookie scoped to the session, then resumes at the first step', async () => {
    const s = await newSession(t, ws, 'income_verification');
    const agent = new ApplicantAgent(t);
    const first = await agent.get(linkPath(s.signed_url));
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe(`/app/s/${s.session_id}`);
    expect(first.headers['referrer-policy']).toBe('no-referrer');
    const cookie = first.cookies.find((c) => c.name === 'dossier_applicant');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: `/app/s/${s.session_id}`, value: s.token });
    expect(cookie?.secure).toBeFalsy();

    const resume = await agent.get(`/app/s/${s.session_id}`);
    expect(resume.statusCode).toBe(303);
    expect(resume.headers.location).toBe(`/app/s/${s.session_id}/form/applicant`);
    const page = await agent.get(resume.headers.location as string);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('<html lang="en">');
    expect(page.body).toContain('<h1>About you</h1>');
    expect(page.body).toMatch(/<input[^>]*id="email"[^>]*type="email"[^>]*autocomplete="email"/);
    expect(page.body).toMatch(/<input[^>]*id="full_name"[^>]*autocomplete="name"/);
    expect(page.body).toMatch(/<input[^>]*id="date_of_birth-day"[^>]*inputmode="numeric"[^>]*autocomplete="bday-day"/);
    expect(page.body).toMatch(/<input[^>]*id="monthly_income"[^>]*inputmode="decimal"/);
    expect(page.body).not.toContain(s.token);
  });

  it('marks the cookie Secure when APP_URL is https', async () => {
    const secure = await createTestApp(backend, { env: { APP_URL: 'https://apply.example.com/app' } });
    try {
      const w = await secure.workspace();
      await withExampleCaseTypes(secure, w.orgId);
      const s = await newSession(secure, w, 'address_proof');
      const res = await secure.app.inject({ method: 'GET', url: linkPath(s.signed_url) });
      expect(res.statusCode).toBe(303);
      expect(res.cookies.find((c) => c.name === 'dossier_applicant')).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax' });
    } finally {
      await secure.close();
    }
  });

  it('answers 403 with a clear page for a wrong, missing or foreign token, and sets no cookie', async () => {
    const s = await newSession(t, ws, 'income_verification');
    const other = await newSession(t, ws, 'income_verification');
    for (const url of [
      `/app/s/${s.session_id}?token=${'A'.repeat(43)}`,
      `/app/s/${s.session_id}`,
      `/app/s/${s.session_id}?token=${other.token}`,
      `/app/s/not-a-uuid?token=${s.token}`,
      `/app/s/${s.session_id}/form/applicant`,
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(403);
      expect(res.body).toContain('This link does not work');
      expect(res.cookies).toEqual([]);
    }
    // A cookie of another session opens nothing here either.
    const foreign = await t.app.inject({ method: 'GET', url: `/app/s/${s.session_id}`, headers: { cookie: `dossier_applicant=${other.token}` } });
    expect(foreign.statusCode).toBe(403);
  });

  it('answers 410 after expiry, with a link back to return_url', async () => {
    const s = await newSession(t, ws, 'income_verification', { return_url: 'https://acme.example/loans/done', expires_in_seconds: 3600 });
    const agent = new ApplicantAgent(t);
    await agent.open(s.signed_url);
    clock.advance(3601 * 1000);
    const later = await agent.get(`/app/s/${s.session_id}/form/applicant`);
    expect(later.statusCode).toBe(410);
    expect(later.body).toContain('This link has expired');
    expect(later.body).toContain('href="https://acme.example/loans/done"');
    // Still a test session: the banner says so on the expired page too.
    expect(later.body).toContain('This is a test session.');
    const fresh = await t.app.inject({ method: 'GET', url: linkPath(s.signed_url) });
    expect(fresh.statusCode).toBe(410);
    const write = await agent.post(`/app/s/${s.session_id}/form/applicant`, { full_name: 'Jane' }, 'whatever');
    expect(write.statusCode).toBe(410);
  });

  it('shows the server error page in the applicant’s language, with the request id as a reference', async () => {
    const s = await newSession(t, ws, 'income_verification');
    const agent = new ApplicantAgent(t);
    await agent.open(s.signed_url);
    const ctx = t.ctx as { db: unknown };
    const db = ctx.db;
    // The database goes away between two pages.
    ctx.db = new Proxy({}, { get: () => { throw new Error('database unavailable'); } });
    let res;
    try {
      res = await agent.get(`/app/s/${s.session_id}/form/applicant`, { 'accept-language': 'fr-FR,fr;q=0.9' });
    } finally {
      ctx.db = db;
    }
    expect(res.statusCode).toBe(500);
    expect(res.body).toContain('<html lang="fr"');
    expect(res.body).toContain('Désolé, le service rencontre un problème');
    expect(res.body).toMatch(/Si vous nous contactez à ce sujet, donnez cette référence : <code>[^<]+<\/code>/);
    expect(res.body).not.toContain('Request id');
  });

  it('validates on the server, re-shows everything typed with an error summary, and saves on Continue', async () => {
    const s = await newSession(t, ws, 'income_verification', { prefill: { full_name: 'Jane Doe' } });
    const agent = new ApplicantAgent(t);
    await agent.open(s.signed_url);
    const url = `/app/s/${s.session_id}/form/applicant`;
    const page = await agent.get(url);
    expect(page.body).toContain('value="Jane Doe"');

    const bad = await agent.post(url, { full_name: 'Jane Doe', email: 'jane@', 'date_of_birth-day': '31', 'date_of_birth-month': '2', 'date_of_birth-year': '1990', monthly_income: 'lots' }, csrfOf(page.body));
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('<title>Error: About you – Secure document intake</title>');
    expect(bad.body).toContain('There is a problem');
    expect(bad.body).toContain('href="#email"');
    expect(bad.body).toContain('Enter an email address in the correct format, like name@example.com');
    expect(bad.body).toContain('href="#date_of_birth-day"');
    expect(bad.body).toContain('Date of birth must be a real date');
    expect(bad.body).toContain('Monthly income must be an amount of money');
    expect(bad.body).toContain('value="jane@"');
    expect(bad.body).toContain('value="lots"');
    expect(bad.body).toContain('aria-invalid="true"');
    const stored = await t.ctx.db.selectFrom('cases').select('structured_inputs').where('case_id', '=', s.case_id).executeTakeFirstOrThrow();
    expect(stored.structured_inputs).toEqual({});

    const missing = await agent.post(url, { full_name: '', email: '' }, csrfOf(page.body));
    expect(missing.body).toContain('Enter your full legal name');
    expect(missing.body).toContain('Enter your email address');
    expect(missing.body).toContain('Enter your date of birth');

    const good = await agent.post(url, { full_name: 'Jane Doe', email: 'jane@example.com', 'date_of_birth-day': '7', 'date_of_birth-month': '3', 'date_of_birth-year': '1990', monthly_income: '$2,150.5' }, csrfOf(page.body));
    expect(good.statusCode).toBe(303);
    expect(good.headers.location).toBe(`/app/s/${s.session_id}/upload/documents`);
    const saved = await t.ctx.db.selectFrom('cases').select('structured_inputs').where('case_id', '=', s.case_id).executeTakeFirstOrThrow();
    expect(saved.structured_inputs).toEqual({ full_name: 'Jane Doe', email: 'jane@example.com', date_of_birth: '1990-03-07', monthly_income: '2150.50' });
  });

  it('resumes in another browser through the link, with everything entered still there', async () => {
    const s = await newSession(t, ws, 'income_verification');
    const first = new ApplicantAgent(t);
    await first.open(s.signed_url);
    await first.post(`/app/s/${s.session_id}/form/applicant`, { full_name: 'Ana Silva', email: 'ana@example.com', 'date_of_birth-day': '1', 'date_of_birth-month': '12', 'date_of_birth-year': '1985' });
    const second = new ApplicantAgent(t);
    const { landing } = await second.open(s.signed_url);
    expect(landing).toBe(`/app/s/${s.session_id}/upload/documents`);
    const back = await second.get(`/app/s/${s.session_id}/form/applicant`);
    expect(back.body).toContain('value="Ana Silva"');
    expect(back.body).toContain('value="1985"');
  });

  it('refuses a post without the session CSRF token, and one from another session', async () => {
    const s = await newSession(t, ws, 'income_verification');
    const other = await newSession(t, ws, 'income_verification');
    const agent = new ApplicantAgent(t);
    await agent.open(s.signed_url);
    const otherAgent = new ApplicantAgent(t);
    await otherAgent.open(other.signed_url);
    const foreignCsrf = csrfOf((await otherAgent.get(`/app/s/${other.session_id}/form/applicant`)).body);
    const url = `/app/s/${s.session_id}/form/applicant`;
    for (const csrf of ['', 'nope', foreignCsrf]) {
      const res = await t.app.inject({ method: 'POST', url, headers: { ...FORM, cookie: cookieHeader(agent.cookies) }, payload: form({ _csrf: csrf, full_name: 'X' }) });
      expect(res.statusCode).toBe(403);
      expect(res.body).toContain('Your page was out of date');
    }
    const stored = await t.ctx.db.selectFrom('cases').select('structured_inputs').where('case_id', '=', s.case_id).executeTakeFirstOrThrow();
    expect(stored.structured_inputs).toEqual({});
  });

  it('speaks the session locale, else the browser language', async () => {
    const fr = await newSession(t, ws, 'income_verification', { locale: 'fr-CA' });
    const agent = new ApplicantAgent(t);
    await agent.open(fr.signed_url);
    const page = await agent.get(`/app/s/${fr.session_id}/form/applicant`);
    expect(page.body).toContain('<html lang="fr">');
    expect(page.body).toContain('Continuer');
    const en = await newSession(t, ws, 'income_verification');
    const browser = new ApplicantAgent(t);
    await browser.open(en.signed_url);
    const french = await browser.get(`/app/s/${en.session_id}/form/applicant`, { 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.5' });
    expect(french.body).toContain('<html lang="fr">');
  });
});
