import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { dashboardAgent, type DashboardAgent } from '../support/dashboard-agent.ts';
import { incomeVerification, withExampleCaseTypes } from '../support/fixtures.ts';
import { csrfOf, newOperator, signInOperator } from '../support/web.ts';
import { addEndpoint, caseEvent, enqueue, insertCase, PRIVATE_NETWORK_ENV } from '../webhooks/fixtures.ts';
import { indentedJson } from '../../src/web/dashboard/developers/webhooks/json-body.ts';

/** Every developer settings page, as GET paths (the item pages are filled in once the items exist). */
const DEVELOPER_PAGES = [
  '/dashboard/developers',
  '/dashboard/developers/keys',
  '/dashboard/developers/webhooks',
  '/dashboard/developers/notifications',
  '/dashboard/developers/case-types',
  '/dashboard/developers/case-types/income_verification',
  '/dashboard/developers/account',
];
const DEVELOPER_POSTS = [
  '/dashboard/developers/keys',
  '/dashboard/developers/webhooks',
  '/dashboard/developers/case-types',
  '/dashboard/developers/notifications/read',
  '/dashboard/developers/account/terms',
  '/dashboard/developers/account/invitations',
];

function multipart(fields: Record<string, string>, file?: { name: string; content: string }) {
  const boundary = '----dossier-test-boundary';
  const parts = Object.entries(fields).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  if (file) parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="case-type.json"\r\nContent-Type: application/json\r\n\r\n${file.content}\r\n`);
  return { payload: `${parts.join('')}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` };
}

describeEachBackend('developer settings: case types, account, notifications, roles', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let admin: DashboardAgent;
  let adminCookie: string;
  beforeAll(async () => {
    t = await createTestApp(backend, { env: { ...PRIVATE_NETWORK_ENV } });
    ws = await t.workspace({ name: 'Acme Lending', acceptLegal: false, billing: 'active' });
    await withExampleCaseTypes(t, ws.orgId);
    const op = await newOperator(t, ws.orgId, 'admin');
    admin = await dashboardAgent(t, op.email, op.password);
    adminCookie = (await signInOperator(t, op.email, op.password)).cookie;
  });
  afterAll(() => t.close());

  const upload = async (fields: Record<string, string>, file?: { name: string; content: string }) => {
    const page = await t.app.inject({ method: 'GET', url: '/dashboard/developers/case-types', headers: { cookie: adminCookie } });
    const body = multipart({ _csrf: csrfOf(page.body), ...fields }, file);
    return t.app.inject({ method: 'POST', url: '/dashboard/developers/case-types', headers: { cookie: adminCookie, 'content-type': body.contentType }, payload: body.payload });
  };

  it('shows every problem of an invalid case type at its JSON path, and stores nothing', async () => {
    const broken = structuredClone(incomeVerification) as { case_type_id: string; facts: { type: string }[]; workflow: { nodes: { rules?: { why?: string }[] }[] } };
    broken.case_type_id = 'broken_type';
    broken.facts[0]!.type = 'colour';
    const gate = broken.workflow.nodes.findIndex((n) => n.rules);
    delete broken.workflow.nodes[gate]!.rules![0]!.why;
    const res = await upload({ definition_text: JSON.stringify(broken) });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('<title>Error: Case types');
    expect(res.body).toContain('<code>$.facts[0].type</code>');
    expect(res.body).toContain(`<code>$.workflow.nodes[${gate}].rules[0].why</code>`);
    expect(res.body).toContain('broken_type'); // what was pasted is kept
    expect(await t.ctx.db.selectFrom('case_types').select('case_type_id').where('case_type_id', '=', 'broken_type').execute()).toEqual([]);

    const notJson = await upload({ definition_text: '{"case_type_id": ' });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.body).toContain('This is not valid JSON');
  });

  it('uploads a file; a changed workflow becomes a new version; the view shows rules with their why, for every version', async () => {
    const changed = structuredClone(incomeVerification) as { name: string; facts: { anchors: string[] }[]; workflow: { nodes: { type: string; rules?: { why: string }[] }[] } };
    changed.facts[0]!.anchors = [...changed.facts[0]!.anchors, 'Another anchor'];
    changed.workflow.nodes.find((n) => n.type === 'gate')!.rules![0]!.why = 'Reworded reason of version two';
    const res = await upload({ definition_text: '' }, { name: 'definition_file', content: JSON.stringify(changed) });
    expect(res.statusCode).toBe(303);
    const flash = res.cookies.find((c) => c.name === 'dossier_flash')!;
    const after = await t.app.inject({ method: 'GET', url: String(res.headers.location), headers: { cookie: `${adminCookie}; dossier_flash=${flash.value}` } });
    expect(after.body).toContain('income_verification is stored as version v2.');
    const list = await admin.get('/dashboard/developers/case-types');
    expect(list.body).toMatch(/v1: 0 cases/);
    expect(list.body).toMatch(/v2: 0 cases/);
    const view = await admin.get('/dashboard/developers/case-types/income_verification');
    expect(view.statusCode).toBe(200);
    expect(view.body).toContain('Why: ');
    expect(view.body).toContain('Reworded reason of version two');
    expect(view.body).toContain('href="/dashboard/developers/case-types/income_verification?version=v1"');
    // The version cases may still be pinned to stays readable, with its own rules.
    const old = await admin.get('/dashboard/developers/case-types/income_verification?version=v1');
    expect(old.statusCode).toBe(200);
    expect(old.body).toContain('You are viewing version v1');
    expect(old.body).toContain('Why: ');
    expect(old.body).not.toContain('Reworded reason of version two');
    expect((await admin.get('/dashboard/developers/case-types/income_verification?version=v9')).statusCode).toBe(404);
    const row = await t.ctx.db.selectFrom('case_types').select('workflow_version').where('org_id', '=', ws.orgId).where('environment', '=', 'test').where('case_type_id', '=', 'income_verification').executeTakeFirstOrThrow();
    expect(row.workflow_version).toBe('v2');
  });

  it('lists missing translations per locale as warnings: the case type is stored, the page names each missing text (issue 26)', async () => {
    const partial = structuredClone(incomeVerification) as { case_type_id: string; translations: Record<string, Record<string, string>> };
    partial.case_type_id = 'partly_translated';
    delete partial.translations.de!['fields.email.label'];
    delete partial.translations.es;
    const res = await upload({ definition_text: JSON.stringify(partial) });
    expect(res.statusCode).toBe(303);
    const flash = res.cookies.find((c) => c.name === 'dossier_flash')!;
    const after = await t.app.inject({ method: 'GET', url: String(res.headers.location), headers: { cookie: `${adminCookie}; dossier_flash=${flash.value}` } });
    expect(after.body).toContain('partly_translated is stored as version v1. 2 languages have missing translations');
    const view = await admin.get('/dashboard/developers/case-types/partly_translated');
    expect(view.body).toContain('Warning: 1 text without a German translation, 15 texts without a Spanish translation');
    expect(view.body).toContain('<li><code>fields.email.label</code>: Email address</li>');
    const complete = await admin.get('/dashboard/developers/case-types/income_verification');
    expect(complete.body).toContain('Every applicant-facing text is translated into French, German and Spanish.');
  });

  it('accepting the terms records version, time and operator, and lets live sessions through', async () => {
    const live = await t.createKey(ws.orgId, { environment: 'live' });
    const create = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/sessions',
        headers: { authorization: `Bearer ${live.key}`, 'content-type': 'application/json', 'idempotency-key': `terms-${Math.random()}` },
        payload: JSON.stringify({ case_type_id: 'income_verification' }),
      });
    const refused = await create();
    expect(refused.statusCode).toBe(428);
    expect(refused.json().error.code).toBe('legal_acceptance_required');
    const page = await admin.get('/dashboard/developers/account');
    expect(page.body).toContain('Not accepted');
    const accepted = await admin.post('/dashboard/developers/account/terms', {}, page.body);
    expect(accepted.statusCode).toBe(303);
    expect((await admin.follow(accepted)).body).toContain('You accepted the legal terms');
    const org = await t.ctx.db.selectFrom('orgs').selectAll().where('org_id', '=', ws.orgId).executeTakeFirstOrThrow();
    expect(org.legal_terms_version).not.toBeNull();
    expect(org.legal_accepted_at).not.toBeNull();
    expect(org.legal_accepted_by).toMatch(/^op_/);
    expect((await create()).statusCode).toBe(201);
    expect((await admin.get('/dashboard/developers/account')).body).toMatch(/Live sessions: <strong>1<\/strong>/);
  });

  it('invites an operator, who chooses a password through the link and is signed in; then changes their role and disables them (issue 27 §5)', async () => {
    const account = (await admin.get('/dashboard/developers/account')).body;
    expect(account).toContain('Invite an operator');
    expect(account).not.toContain('operator-password');
    const res = await admin.post('/dashboard/developers/account/invitations', { email: 'new.reviewer@example.com', role: 'reviewer' }, account);
    expect(res.statusCode).toBe(303);
    // No SMTP_URL here: the page hands the admin the link, and says why.
    const shown = (await admin.follow(res)).body;
    expect(shown).toContain('Invitation for new.reviewer@example.com created');
    expect(shown).toContain('does not send email');
    const link = /id="invitation-link"[^>]*value="([^"]+)"/.exec(shown)?.[1] ?? /value="([^"]+)"[^>]*id="invitation-link"/.exec(shown)?.[1];
    expect(link).toMatch(/\/dashboard\/join\/[A-Za-z0-9_-]{40,}$/);
    const path = new URL(link!).pathname;
    expect(shown).toMatch(/Invitations not yet accepted[\s\S]*new\.reviewer@example\.com/);

    const join = await t.app.inject({ method: 'GET', url: path });
    expect(join.statusCode).toBe(200);
    expect(join.body).toContain('Join Acme Lending on Dossier');
    expect(join.body).toContain('new.reviewer@example.com');
    const tooShort = await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'password=short' });
    expect(tooShort.statusCode).toBe(400);
    expect(tooShort.body).toContain('at least 12 characters');
    const joined = await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'password=a+long+enough+password' });
    expect(joined.statusCode).toBe(303);
    expect(joined.headers.location).toBe('/dashboard');
    const cookie = joined.cookies.find((c) => c.name === 'dossier_dash');
    expect(cookie?.value).toBeTruthy();
    expect((await t.app.inject({ method: 'GET', url: '/dashboard/cases', headers: { cookie: `dossier_dash=${cookie!.value}` } })).statusCode).toBe(200);
    // The link worked once.
    const again = await t.app.inject({ method: 'GET', url: path });
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain('This invitation has been used');
    expect((await t.app.inject({ method: 'GET', url: '/dashboard/join/nothing-like-a-token' })).statusCode).toBe(404);

    const op = await t.ctx.db.selectFrom('operators').selectAll().where('email', '=', 'new.reviewer@example.com').executeTakeFirstOrThrow();
    expect(op.role).toBe('reviewer');
    await admin.post(`/dashboard/developers/account/operators/${op.operator_id}`, { action: 'role', role: 'admin' }, account);
    await admin.post(`/dashboard/developers/account/operators/${op.operator_id}`, { action: 'disable' }, account);
    const after = await t.ctx.db.selectFrom('operators').selectAll().where('operator_id', '=', op.operator_id).executeTakeFirstOrThrow();
    expect(after.role).toBe('admin');
    expect(after.disabled_at).not.toBeNull();
  });

  it('lists notifications, counts unread ones in the navigation, and marks them read', async () => {
    for (const [i, kind] of (['webhook_delivery_failed', 'webhook_no_endpoint'] as const).entries()) {
      await t.ctx.db
        .insertInto('integration_notifications')
        .values({ notification_id: `ntf_test${i}`, org_id: ws.orgId, environment: 'test', kind, message: `Something happened ${i}`, data: '{}', created_at: new Date(), read_at: null })
        .execute();
    }
    const page = await admin.get('/dashboard/developers/notifications');
    expect(page.body).toContain('Something happened 1');
    expect(page.body).toMatch(/sidenav__count">2<span class="visually-hidden"> unread/);
    // On every dashboard page an admin opens, not only developer settings (issue 11).
    for (const path of ['/dashboard', '/dashboard/cases', '/dashboard/cases?category=all&q=nothing']) {
      expect((await admin.get(path)).body, path).toMatch(/href="\/dashboard\/developers\/notifications"><span>Notifications<\/span><span class="sidenav__count">2<span class="visually-hidden"> unread/);
    }
    const reviewer = await newOperator(t, ws.orgId, 'reviewer');
    const reviewerCookie = (await signInOperator(t, reviewer.email, reviewer.password)).cookie;
    const reviewerQueue = await t.app.inject({ method: 'GET', url: '/dashboard/cases', headers: { cookie: reviewerCookie } });
    expect(reviewerQueue.statusCode).toBe(200);
    expect(reviewerQueue.body).not.toContain('sidenav__count');
    await admin.post('/dashboard/developers/notifications/read', { id: 'ntf_test0' }, page.body);
    expect((await admin.get('/dashboard/developers/keys')).body).toMatch(/sidenav__count">1</);
    expect((await admin.get('/dashboard/cases')).body).toMatch(/sidenav__count">1</);
    await admin.post('/dashboard/developers/notifications/read', { all: 'true' }, page.body);
    expect((await admin.get('/dashboard/developers/keys')).body).not.toContain('sidenav__count');
  });

  it('refuses a reviewer every developer page and action, on the server', async () => {
    const reviewer = await newOperator(t, ws.orgId, 'reviewer');
    const { cookie } = await signInOperator(t, reviewer.email, reviewer.password);
    const home = await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie } });
    const endpoint = await t.ctx.db.selectFrom('webhook_endpoints').select('endpoint_id').where('org_id', '=', ws.orgId).executeTakeFirst();
    const pages = [...DEVELOPER_PAGES, ...(endpoint ? [`/dashboard/developers/webhooks/${endpoint.endpoint_id}`] : []), `/dashboard/developers/keys/${ws.keyId}/revoke`];
    for (const url of pages) {
      const res = await t.app.inject({ method: 'GET', url, headers: { cookie } });
      expect(res.statusCode, url).toBe(403);
      expect(res.body, url).toContain('Developer settings are for workspace admins');
    }
    for (const url of [...DEVELOPER_POSTS, `/dashboard/developers/keys/${ws.keyId}/revoke`]) {
      const res = await t.app.inject({ method: 'POST', url, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: `_csrf=${encodeURIComponent(csrfOf(home.body))}` });
      expect(res.statusCode, url).toBe(403);
    }
    const key = await t.ctx.db.selectFrom('api_keys').select('revoked_at').where('key_id', '=', ws.keyId).executeTakeFirstOrThrow();
    expect(key.revoked_at).toBeNull();
  });

  it('shows a delivery’s body indented, and the raw body as signed to copy or to read without script (issue 27 §6)', async () => {
    const endpoint = await addEndpoint(t.ctx, ws.orgId, 'http://127.0.0.1:9/hooks/body', ['v1.case.completed']);
    const caseId = await insertCase(t.ctx, ws.orgId, 'test', { externalCaseId: 'loan <7> & "co" – ü' });
    await enqueue(t.ctx, caseEvent(ws.orgId, caseId, { externalCaseId: 'loan <7> & "co" – ü' }));
    const row = await t.ctx.db.selectFrom('webhook_deliveries').select(['delivery_id', 'payload']).where('endpoint_id', '=', endpoint.endpoint_id).executeTakeFirstOrThrow();
    const page = await admin.get(`/dashboard/developers/webhooks/${endpoint.endpoint_id}/deliveries/${row.delivery_id}`);
    expect(page.statusCode).toBe(200);
    const text = (html: string) => html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
    const shown = /<pre class="request-body"[^>]*>([\s\S]*?)<\/pre>/.exec(page.body)?.[1];
    expect(text(shown ?? '')).toBe(JSON.stringify(JSON.parse(row.payload), null, 2));
    expect(text(shown ?? '')).toContain('\n  "external_case_id": "loan <7> & \\"co\\" – ü",\n');
    // The exact bytes: in a readonly textarea (its first newline is the parser's to drop), inside
    // details that work without script; the copy button is hidden until the script shows it.
    const raw = /<textarea id="raw-body"[^>]*readonly[^>]*>\n([\s\S]*?)<\/textarea>/.exec(page.body)?.[1];
    expect(text(raw ?? '')).toBe(row.payload);
    expect(page.body).toMatch(/<details class="details">\s*<summary>Raw body, as signed<\/summary>/);
    expect(page.body).toMatch(/<button type="button" class="button button--secondary button--small" data-copy-raw="raw-body" hidden>Copy raw body<\/button>\s*<span class="copy-raw__status" id="raw-body-copied" role="status" aria-live="polite"><\/span>/);

    // Indenting keeps every token as written; what is not JSON is shown as it is.
    expect(indentedJson('{"n":1.50,"s":"a\\u00e9\\"}","e":[],"o":{ },"l":[1,{"x":null}]}')).toBe('{\n  "n": 1.50,\n  "s": "a\\u00e9\\"}",\n  "e": [],\n  "o": {},\n  "l": [\n    1,\n    {\n      "x": null\n    }\n  ]\n}');
    expect(indentedJson('not json {')).toBeNull();
  });

  it('applies the 428 self-serve rule and the API URL rules when adding an endpoint', async () => {
    const strict = await createTestApp(backend, { env: { SELF_SERVE_WEBHOOKS: 'false' } });
    try {
      const w = await strict.workspace();
      const op = await newOperator(strict, w.orgId, 'admin');
      const agent = await dashboardAgent(strict, op.email, op.password);
      const refused = await agent.post('/dashboard/developers/webhooks', { url: 'https://hooks.example.com/x', events: '*' });
      expect(refused.statusCode).toBe(428);
      expect(refused.body).toContain('Self-serve webhook delivery is disabled');
      const bad = await admin.post('/dashboard/developers/webhooks', { url: 'ftp://example.com/x', events: '*' });
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain('endpoint_url must be');
      expect(await strict.ctx.db.selectFrom('webhook_endpoints').select('endpoint_id').execute()).toEqual([]);
    } finally {
      await strict.close();
    }
  });
});
