import { afterAll, beforeAll, expect, it } from 'vitest';
import { putCaseType } from '../../src/domain/case-types/case-types.ts';
import { APPLICANT_WRITES_PER_MINUTE } from '../../src/web/app/index.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { ApplicantAgent } from '../support/applicant.ts';
import { csrfOf } from '../support/web.ts';

/** Three applicant steps: two forms and an upload (the other field types are in applicant-fields.test.ts). */
const threeSteps = {
  case_type_id: 'tenancy',
  name: 'Tenancy application',
  operating_mode: 'system_of_record',
  facts: [{ fact_id: 'monthly_rent', label: 'Monthly rent', type: 'money', required: true, document_kinds: ['reference'], anchors: ['Monthly rent'] }],
  workflow: {
    workflow_id: 'tenancy',
    nodes: [
      { node_id: 'contact', type: 'form', title: 'How we reach you', fields: [
        { field_id: 'phone', label: 'Phone number', type: 'phone', required: true },
        { field_id: 'contact_time', label: 'Best time to call', type: 'select', required: true, options: ['Morning', 'Afternoon'] },
      ] },
      { node_id: 'home', type: 'form', title: 'Your home', fields: [
        { field_id: 'people', label: 'Number of people', type: 'number', required: true, validation: { min: 1, max: 12 } },
        { field_id: 'notes', label: 'Anything else', type: 'textarea', required: false, validation: { max_length: 20 } },
        { field_id: 'consent', label: 'I agree to a credit check', type: 'checkbox', required: true },
      ] },
      { node_id: 'docs', type: 'upload', title: 'Landlord reference', documents: [
        { document_kind: 'reference', label: 'Reference letter', required: false, accept: ['application/pdf'], max_files: 1 },
      ] },
    ],
  },
};

describeEachBackend('applicant app: task list, every field type, write limit', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  beforeAll(async () => {
    t = await createTestApp(backend);
    ws = await t.workspace({ name: 'Acme Homes' });
    await withExampleCaseTypes(t, ws.orgId);
    const put = await putCaseType(t.ctx, { orgId: ws.orgId, environment: 'test', definition: threeSteps });
    if (!put.ok) throw new Error(JSON.stringify(put.problems));
  });
  afterAll(() => t.close());

  it('shows a task list with each step’s status when there are three or more steps', async () => {
    const s = await newSession(t, ws, 'tenancy');
    const agent = new ApplicantAgent(t);
    const { landing } = await agent.open(s.signed_url);
    const base = `/app/s/${s.session_id}`;
    expect(landing).toBe(`${base}/tasks`);
    const tasks = await agent.get(landing);
    expect(tasks.body).toContain(`<a href="${base}/form/contact">How we reach you</a>`);
    expect(tasks.body).toContain('Not yet started');
    expect(tasks.body).toContain('Cannot start yet');
    expect(tasks.body).not.toContain(`href="${base}/check"`);

    const contact = await agent.get(`${base}/form/contact`);
    expect(contact.body).toMatch(/<input[^>]*id="phone"[^>]*type="tel"[^>]*autocomplete="tel"/);
    expect(contact.body).toMatch(/<select[^>]*id="contact_time"/);
    const bad = await agent.post(`${base}/form/contact`, { phone: 'call me', contact_time: 'Midnight' }, csrfOf(contact.body));
    expect(bad.body).toContain('Enter a phone number, like 01632 960 001 or +44 7700 900 982');
    expect(bad.body).toContain('Select your best time to call from the list');
    expect((await agent.post(`${base}/form/contact`, { phone: '+44 7700 900 982', contact_time: 'Morning' }, csrfOf(contact.body))).headers.location).toBe(`${base}/tasks`);

    const home = await agent.get(`${base}/form/home`);
    const wrong = await agent.post(`${base}/form/home`, { people: '40', notes: 'x'.repeat(21) }, csrfOf(home.body));
    expect(wrong.body).toContain('Number of people must be 12 or less');
    expect(wrong.body).toContain('Anything else must be 20 characters or fewer');
    expect(wrong.body).toContain('Select the box to confirm: I agree to a credit check');
    const right = await agent.post(`${base}/form/home`, { people: '3', notes: '', consent: 'yes' }, csrfOf(home.body));
    expect(right.headers.location).toBe(`${base}/tasks`);
    // The optional upload step is done by continuing without a file.
    expect((await agent.post(`${base}/upload/docs`, {})).headers.location).toBe(`${base}/tasks`);
    const after = await agent.get(`${base}/tasks`);
    expect(after.body.match(/Completed/g)).toHaveLength(3);
    expect(after.body).toContain(`href="${base}/check"`);
    const saved = await t.ctx.db.selectFrom('cases').select('structured_inputs').where('case_id', '=', s.case_id).executeTakeFirstOrThrow();
    expect(saved.structured_inputs).toEqual({ phone: '+44 7700 900 982', contact_time: 'Morning', people: '3', notes: '', consent: 'yes' });
  });

  it('limits writes per session and answers 429 with a page', async () => {
    const s = await newSession(t, ws, 'income_verification');
    const agent = new ApplicantAgent(t);
    await agent.open(s.signed_url);
    const url = `/app/s/${s.session_id}/form/applicant`;
    const csrf = csrfOf((await agent.get(url)).body);
    for (let i = 0; i < APPLICANT_WRITES_PER_MINUTE; i++) expect((await agent.post(url, { full_name: '' }, csrf)).statusCode).toBe(400);
    const limited = await agent.post(url, { full_name: 'Jane' }, csrf);
    expect(limited.statusCode).toBe(429);
    expect(limited.body).toContain('Too many attempts');
    // Another session is not affected.
    const other = await newSession(t, ws, 'income_verification');
    const otherAgent = new ApplicantAgent(t);
    await otherAgent.open(other.signed_url);
    expect((await otherAgent.post(`/app/s/${other.session_id}/form/applicant`, { full_name: '' })).statusCode).toBe(400);
  });
});
