import { afterAll, beforeAll, expect, it } from 'vitest';
import { putCaseType } from '../../src/domain/case-types/case-types.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { newSession, tenancyApplication } from '../support/fixtures.ts';
import { ApplicantAgent, multipartBody } from '../support/applicant.ts';
import { cookieHeader, csrfOf } from '../support/web.ts';
import { textPdf } from '../extraction/helpers.ts';
import { drainCaseJobs, readCase } from '../engine/engine-fixtures.ts';

/**
 * The field types of tenancy_application.json (phone, address, one_of, money with a currency,
 * checkbox): each rendered the GOV.UK way with its autocomplete and inputmode, checked on the
 * server, shown on check your answers, and stored on the case where gates and facts read it.
 */
describeEachBackend('applicant app: address, phone, one_of, money and checkbox fields', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  const today = () => t.clock.now().toISOString().slice(0, 10);
  beforeAll(async () => {
    t = await createTestApp(backend);
    ws = await t.workspace({ name: 'Acme Homes' });
    const put = await putCaseType(t.ctx, { orgId: ws.orgId, environment: 'test', definition: tenancyApplication });
    if (!put.ok) throw new Error(JSON.stringify(put.problems));
  });
  afterAll(() => t.close());

  const good = {
    full_name: 'Jane Doe',
    phone: '+44 7700 900 982',
    'current_address-line1': '12 High Street',
    'current_address-line2': '',
    'current_address-town': 'Leeds',
    'current_address-postcode': 'LS1 4AB',
    'current_address-country': '',
    housing: 'Renting',
    monthly_rent: '£1,250',
    credit_check: 'yes',
  };

  it('renders each type with its control, label, autocomplete and inputmode', async () => {
    const s = await newSession(t, ws, 'tenancy_application', { prefill: { current_address: { line1: '3 Mill Lane', town: 'York', postcode: 'YO1 7HH' } } });
    const agent = new ApplicantAgent(t);
    const { landing } = await agent.open(s.signed_url);
    const page = (await agent.get(landing)).body;
    expect(page).toMatch(/<input[^>]*id="phone"[^>]*type="tel"[^>]*autocomplete="tel"[^>]*inputmode="tel"/);
    // The address: a fieldset named by its legend, one labelled box per part with its own token, pre-filled.
    expect(page).toMatch(/<fieldset[^>]*><legend[^>]*>Current address<\/legend>/);
    for (const [part, label, token] of [['line1', 'Address line 1', 'address-line1'], ['line2', 'Address line 2 (optional)', 'address-line2'], ['town', 'Town or city', 'address-level2'], ['postcode', 'Postcode or ZIP code', 'postal-code'], ['country', 'Country (optional)', 'country-name']]) {
      expect(page).toContain(`<label class="label" for="current_address-${part}">${label}</label>`);
      expect(page).toMatch(new RegExp(`<input[^>]*id="current_address-${part}"[^>]*autocomplete="${token}"`));
    }
    expect(page).toMatch(/id="current_address-line1"[^>]*value="3 Mill Lane"/);
    expect(page).toMatch(/id="current_address-postcode"[^>]*value="YO1 7HH"/);
    // one_of: radios in a fieldset whose legend is the question.
    expect(page).toMatch(/<legend[^>]*>Where do you live now\?<\/legend>/);
    expect(page.match(/type="radio" value="[^"]+"/g)).toEqual(['type="radio" value="Renting"', 'type="radio" value="Own home"', 'type="radio" value="With family or friends"', 'type="radio" value="Other"']);
    // Money: decimal keyboard, the currency symbol as a prefix, and its name in words in the hint.
    expect(page).toMatch(/<span class="input-prefix__text" aria-hidden="true">£<\/span><input[^>]*id="monthly_rent"[^>]*inputmode="decimal"/);
    expect(page).toContain('Amount in British Pound (GBP), numbers only, for example 1250.50');
    expect(page).toMatch(/<input id="credit_check" name="credit_check" type="checkbox" value="yes"/);
  });

  it('speaks French for every part: address labels, the currency in words, the errors', async () => {
    const s = await newSession(t, ws, 'tenancy_application', { locale: 'fr' });
    const agent = new ApplicantAgent(t);
    const { landing } = await agent.open(s.signed_url);
    const page = (await agent.get(landing)).body;
    expect(page).toContain('<html lang="fr"');
    for (const label of ['Adresse, ligne 1', 'Adresse, ligne 2 (facultatif)', 'Ville', 'Code postal', 'Pays (facultatif)']) expect(page).toContain(`>${label}</label>`);
    expect(page).toContain('Montant en livre sterling (GBP), chiffres uniquement, par exemple 1250,50');
    expect(page).toMatch(/aria-hidden="true">£<\/span>/);
    const empty = await agent.post(landing, {}, csrfOf(page));
    expect(empty.body).toContain('Saisissez la ligne 1 de l’adresse, en général le numéro et la rue');
    expect(empty.body).toContain('Choisissez une réponse à « Où vivez-vous actuellement ? »');
  });

  it('gives each type its own error, keeps what was typed, and links the summary to the box to fix', async () => {
    const s = await newSession(t, ws, 'tenancy_application');
    const agent = new ApplicantAgent(t);
    const { landing } = await agent.open(s.signed_url);
    const empty = await agent.post(landing, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('<a href="#current_address-line1">Enter address line 1, typically the building and street</a>');
    expect(empty.body).toContain('<a href="#housing">Select an answer to “Where do you live now?”</a>');
    expect(empty.body).toContain('Enter your monthly rent you can pay');
    expect(empty.body).toContain('Select the box to confirm: I agree to a credit check');

    const wrong = await agent.post(landing, { ...good, phone: 'call me', 'current_address-town': '', 'current_address-line2': 'Flat 2', housing: 'Castle', monthly_rent: '£0' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('Enter a phone number, like 01632 960 001 or +44 7700 900 982');
    expect(wrong.body).toContain('<a href="#current_address-town">Enter town or city</a>');
    expect(wrong.body).toContain('Monthly rent you can pay must be 1 or more');
    expect(wrong.body).toMatch(/id="current_address-line2"[^>]*value="Flat 2"/);
    expect(wrong.body).toMatch(/id="current_address-town"[^>]*aria-invalid="true"/);

    const postcode = await agent.post(landing, { ...good, 'current_address-postcode': '!!' });
    expect(postcode.body).toContain('<a href="#current_address-postcode">Enter a real postcode or ZIP code, like SW1A 1AA or 94105</a>');
    // A radio value that was never offered is refused like no choice at all.
    expect((await agent.post(landing, { ...good, housing: 'Castle' })).body).toContain('<a href="#housing">');
  });

  // Regression: a NUL typed into a text answer reached the row write, which PostgreSQL refuses (a 500).
  it('shows a NUL in a text answer as a field error, and stores nothing', async () => {
    const s = await newSession(t, ws, 'tenancy_application');
    const agent = new ApplicantAgent(t);
    const { landing } = await agent.open(s.signed_url);
    const refused = await agent.post(landing, { ...good, full_name: 'Jane\u0000Doe' });
    expect(refused.statusCode).toBe(400);
    const row = await t.ctx.db.selectFrom('cases').select('structured_inputs').where('case_id', '=', s.case_id).executeTakeFirstOrThrow();
    expect(row.structured_inputs).toEqual({});
  });

  it('stores the answers on the case, shows them on check your answers, and the gates compare the address with the bill', async () => {
    const s = await newSession(t, ws, 'tenancy_application');
    const agent = new ApplicantAgent(t);
    const { landing } = await agent.open(s.signed_url);
    const base = `/app/s/${s.session_id}`;
    const saved = await agent.post(landing, good);
    expect(saved.statusCode).toBe(303);
    const row = await t.ctx.db.selectFrom('cases').select('structured_inputs').where('case_id', '=', s.case_id).executeTakeFirstOrThrow();
    expect(row.structured_inputs).toEqual({
      full_name: 'Jane Doe',
      phone: '+44 7700 900 982',
      current_address: { line1: '12 High Street', town: 'Leeds', postcode: 'LS1 4AB' },
      housing: 'Renting',
      monthly_rent: '1250.00',
      credit_check: 'yes',
    });
    // Back on the form, every answer is shown as saved.
    const again = (await agent.get(landing)).body;
    expect(again).toMatch(/id="current_address-town"[^>]*value="Leeds"/);
    expect(again).toMatch(/value="Renting" checked\/>/);
    expect(again).toMatch(/id="monthly_rent"[^>]*value="1250.00"/);

    const bill = await textPdf([
      { text: 'NORTHERN POWER', y: 780 },
      { text: 'Account holder: Jane Doe', y: 740 },
      { text: 'Service address: 12 High Street, Leeds LS1 4AB', y: 720 },
      { text: `Statement date: ${today()}`, y: 700 },
    ]);
    const uploadPage = `${base}/upload/proof`;
    const body = multipartBody({ _csrf: csrfOf((await agent.get(uploadPage)).body), kind: 'utility_bill' }, { name: 'file', filename: 'bill.pdf', type: 'application/pdf', bytes: bill });
    const up = await t.app.inject({ method: 'POST', url: `${uploadPage}/files`, headers: { 'content-type': body.contentType, cookie: cookieHeader(agent.cookies) }, payload: body.payload });
    expect(up.statusCode).toBe(303);
    expect((await agent.post(uploadPage, {})).headers.location).toBe(`${base}/check`);

    const check = (await agent.get(`${base}/check`)).body;
    expect(check).toContain('12 High Street<br/>Leeds<br/>LS1 4AB');
    expect(check).toContain('£1,250.00');
    expect(check).toContain('Renting');
    expect(check).toContain('+44 7700 900 982');
    expect(check).toMatch(/I agree to a credit check<\/dt>\s*<dd class="summary-list__value">Yes/);
    expect((await agent.post(`${base}/submit`, {}, csrfOf(check))).headers.location).toBe(`${base}/status?sent=1`);
    await drainCaseJobs(t);

    const record = await readCase(t, ws, s.case_id);
    expect(record.runtime_status).toBe('complete');
    expect(record.workspace.structured_inputs.current_address).toEqual({ line1: '12 High Street', town: 'Leeds', postcode: 'LS1 4AB' });
    const address = record.workspace.facts.find((f: { fact_id: string }) => f.fact_id === 'service_address');
    expect(address.verification_metadata).toEqual(expect.arrayContaining([expect.objectContaining({ rule_id: 'address_matches', field_id: 'current_address', result: 'match', input_value_normalized: '12 high street leeds ls1 4ab' })]));
  });

  it('lets an address that differs from the bill fail its gate', async () => {
    const s = await newSession(t, ws, 'tenancy_application');
    const agent = new ApplicantAgent(t);
    const { landing } = await agent.open(s.signed_url);
    const base = `/app/s/${s.session_id}`;
    expect((await agent.post(landing, { ...good, 'current_address-line1': '99 Other Road' })).statusCode).toBe(303);
    const bill = await textPdf([
      { text: 'Account holder: Jane Doe', y: 740 },
      { text: 'Service address: 12 High Street, Leeds LS1 4AB', y: 720 },
      { text: `Statement date: ${today()}`, y: 700 },
    ]);
    const uploadPage = `${base}/upload/proof`;
    const body = multipartBody({ _csrf: csrfOf((await agent.get(uploadPage)).body), kind: 'utility_bill' }, { name: 'file', filename: 'bill.pdf', type: 'application/pdf', bytes: bill });
    await t.app.inject({ method: 'POST', url: `${uploadPage}/files`, headers: { 'content-type': body.contentType, cookie: cookieHeader(agent.cookies) }, payload: body.payload });
    const check = (await agent.get(`${base}/check`)).body;
    await agent.post(`${base}/submit`, {}, csrfOf(check));
    await drainCaseJobs(t);
    const record = await readCase(t, ws, s.case_id);
    expect(record.runtime_status).toBe('ready_for_review');
    const address = record.workspace.facts.find((f: { fact_id: string }) => f.fact_id === 'service_address');
    expect(address.verification_metadata).toEqual(expect.arrayContaining([expect.objectContaining({ rule_id: 'address_matches', result: 'mismatch', input_value_normalized: '99 other road leeds ls1 4ab' })]));
  });
});
