import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { ApplicantAgent, multipartBody } from '../support/applicant.ts';
import { cookieHeader, csrfOf } from '../support/web.ts';
import { textPdf } from '../extraction/helpers.ts';
import { drainCaseJobs } from '../engine/engine-fixtures.ts';

/**
 * Issue 26 §2 and §4 through HTTP: which language a page is in (session locale, then the header's
 * language links, then Accept-Language), numbers, money and dates as the locale writes them, page
 * titles whole, and the finish page: the applicant's reference, what happens next, the way back.
 */
describeEachBackend('applicant app: the applicant’s language and the finish page', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  const today = () => t.clock.now().toISOString().slice(0, 10);
  beforeAll(async () => {
    t = await createTestApp(backend);
    ws = await t.workspace({ name: 'Acme Lending' });
    await withExampleCaseTypes(t, ws.orgId);
  });
  afterAll(() => t.close());

  async function started(caseType: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    const s = await newSession(t, ws, caseType, extra);
    const agent = new ApplicantAgent(t);
    const first = await agent.get(new URL(s.signed_url).pathname + new URL(s.signed_url).search, headers);
    await agent.get(String(first.headers.location), headers);
    return { s, agent, base: `/app/s/${s.session_id}` };
  }

  const about = { full_name: 'Jane Doe', email: 'jane@example.com', 'date_of_birth-day': '27', 'date_of_birth-month': '12', 'date_of_birth-year': '1990', monthly_income: '4200' };

  it('takes Accept-Language when nothing else is said; a language link changes it, keeps the page and its query, and outranks the browser', async () => {
    const de = { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' };
    const { s, agent, base } = await started('income_verification', {}, de);
    expect((await agent.post(`${base}/form/applicant`, about)).statusCode).toBe(303);
    const form = await agent.get(`${base}/form/applicant?return=check`, de);
    expect(form.body).toContain('<html lang="de"');
    expect(form.body).toContain('<h1>Angaben zu Ihrer Person</h1>');
    expect(form.body).toContain('<span lang="de" aria-current="true">Deutsch</span>');
    expect(form.body).toContain(`href="${base}/form/applicant?return=check&amp;lang=es"`);

    const chosen = await agent.get(`${base}/form/applicant?return=check&lang=es`, de);
    expect(chosen.statusCode).toBe(303);
    expect(chosen.headers.location).toBe(`${base}/form/applicant?return=check`);
    const cookie = chosen.cookies.find((c) => c.name === 'dossier_lang')!;
    expect(cookie).toMatchObject({ value: 'es', path: base, httpOnly: true, sameSite: 'Lax' });

    const spanish = await agent.get(`${base}/form/applicant?return=check`, de);
    expect(spanish.body).toContain('<html lang="es"');
    expect(spanish.body).toContain('<h1>Sus datos</h1>');
    // The saved answers are still there.
    expect(spanish.body).toContain('value="jane@example.com"');
    // An unknown language is ignored, not stored.
    const unknown = await agent.get(`${base}/check?lang=xx`, de);
    expect(unknown.headers.location).toBe(`${base}/check`);
    expect(unknown.cookies.find((c) => c.name === 'dossier_lang')).toBeUndefined();
    expect(s.session_id).toBeTruthy();
  });

  it('the session’s locale wins over the link and the browser, and then the page offers no language links', async () => {
    const { agent, base } = await started('income_verification', { locale: 'fr' }, { 'accept-language': 'de' });
    await agent.get(`${base}/form/applicant?lang=es`);
    const page = await agent.get(`${base}/form/applicant`, { 'accept-language': 'de' });
    expect(page.body).toContain('<html lang="fr"');
    expect(page.body).toContain('<h1>À propos de vous</h1>');
    expect(page.body).not.toContain('app-header__languages');
  });

  it('writes money with its currency, dates and titles as the locale does; "Error:" is translated whole (issue 26)', async () => {
    const { agent, base } = await started('income_verification', { locale: 'de' });
    const wrong = await agent.post(`${base}/form/applicant`, { ...about, email: 'jane@' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('<title>Fehler: Angaben zu Ihrer Person – Sichere Dokumentenabgabe</title>');
    expect((await agent.post(`${base}/form/applicant`, about)).statusCode).toBe(303);
    const check = await agent.get(`${base}/check`);
    expect(check.body).toContain('<title>Prüfen Sie Ihre Antworten vor dem Absenden – Sichere Dokumentenabgabe</title>');
    expect(check.body).toContain('27. Dezember 1990');
    expect(check.body).toContain('4.200,00\u00a0$');
    expect(check.body).toContain('Monatliches Einkommen');

    const fr = await started('income_verification', { locale: 'fr' });
    await fr.agent.post(`${fr.base}/form/applicant`, about);
    const french = await fr.agent.get(`${fr.base}/check`);
    expect(french.body).toContain('27 décembre 1990');
    expect(french.body).toContain('4\u202f200,00\u00a0$US');
    expect(french.body).not.toContain('4200.00');
  });

  async function submitBill(agent: ApplicantAgent, base: string) {
    const page = `${base}/upload/bill`;
    const bytes = await textPdf([
      { text: 'NORTHERN POWER', y: 780 },
      { text: 'Account holder: Jane Doe', y: 740 },
      { text: 'Service address: 12 High Street, Leeds LS1 4AB', y: 720 },
      { text: `Statement date: ${today()}`, y: 700 },
    ]);
    const body = multipartBody({ _csrf: csrfOf((await agent.get(page)).body), kind: 'utility_bill' }, { name: 'file', filename: 'bill.pdf', type: 'application/pdf', bytes });
    const up = await t.app.inject({ method: 'POST', url: `${page}/files`, headers: { 'content-type': body.contentType, cookie: cookieHeader(agent.cookies) }, payload: body.payload });
    expect(up.statusCode).toBe(303);
    expect((await agent.post(`${base}/submit`, {}, csrfOf((await agent.get(`${base}/check`)).body))).statusCode).toBe(303);
    await drainCaseJobs(t);
    return agent.get(`${base}/status`);
  }

  it('finish: the integrator’s external_case_id as the reference, the default next step of a system of record, a button back, and a countdown back that the applicant can stop (no meta refresh)', async () => {
    const { s, agent, base } = await started('address_proof', { locale: 'es', external_case_id: 'LOAN-2026-0042', return_url: 'https://acme.example/back' });
    const done = await submitBill(agent, base);
    expect(done.body).toContain('<h1 class="panel__title">Sus respuestas se han enviado</h1>');
    expect(done.body).toContain('<strong class="mono">LOAN-2026-0042</strong>');
    // The internal id travels only in the return link's query, for the integrator.
    expect(done.body.replace(/(href|data-auto-return)="[^"]*"/g, '')).not.toContain(s.case_id);
    expect(done.body).toContain('<h2>Qué pasa ahora</h2>');
    expect(done.body).toContain('Acme Lending se pondrá en contacto con usted si necesita algo más.');
    expect(done.body).toMatch(/<a class="button" href="https:\/\/acme\.example\/back\?session_id=[^"]+" role="button" draggable="false">Volver a Acme Lending<\/a>/);
    expect(done.body).not.toMatch(/http-equiv="refresh"/i);
    expect(done.body).toContain('Quedarse en esta página');
    expect(done.body).toContain('Volverá a Acme Lending en 20 segundos.');
  });

  it('finish: without an external id, a short reference rather than the internal case id; no return button without a return_url', async () => {
    const { s, agent, base } = await started('address_proof');
    const done = await submitBill(agent, base);
    const random = s.case_id.replace(/^case_/, '');
    expect(done.body).toContain(`<strong class="mono">${random.slice(0, 4)}-${random.slice(4, 8)}</strong>`);
    expect(done.body).not.toContain(s.case_id);
    expect(done.body).not.toContain('All done');
    expect(done.body).toContain('Acme Lending will contact you if they need anything else.');
    expect(done.body).not.toContain('Return to');
  });
});
