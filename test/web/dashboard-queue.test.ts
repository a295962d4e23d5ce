import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { newOperator, signInOperator } from '../support/web.ts';
import { addProcessedDocument } from '../engine/engine-fixtures.ts';
import { DONE_COUNT_TTL_MS, DoneCountCache, queueCategoryCounts } from '../../src/domain/console/queue-page.ts';

describeEachBackend('dashboard case queue', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let cookie: string;
  const clock = new ManualClock('2026-04-01T09:00:00.000Z');
  const sessions: { case_id: string }[] = [];

  beforeAll(async () => {
    t = await createTestApp(backend, { clock });
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
    for (let i = 0; i < 3; i++) {
      sessions.push(await newSession(t, ws, 'income_verification', { external_case_id: `loan-${i}`, external_applicant_id: `applicant-${i}`, external_customer_id: `customer-${i}` }));
      clock.advance(60 * 60_000);
    }
    const op = await newOperator(t, ws.orgId, 'reviewer');
    cookie = (await signInOperator(t, op.email, op.password)).cookie;
  });
  afterAll(() => t.close());

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });

  it('shows tabs per queue category with counts, and the intake cases oldest first with their age', async () => {
    const res = await get('/dashboard/cases?category=intake');
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/aria-current="page"[^>]*>\s*Intake <span class="tabs__count">3/);
    expect(res.body).toMatch(/>\s*Review <span class="tabs__count">0/);
    const order = sessions.map((s) => res.body.indexOf(s.case_id));
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(res.body).toContain('Waiting for the applicant to complete and submit the intake.');
    expect(res.body).toContain('3 h');
  });

  it.each([
    ['external case id', 'loan-1'],
    ['external applicant id', 'applicant-1'],
    ['external customer id', 'customer-1'],
  ])('finds a case by its %s from any tab', async (_what, id) => {
    const res = await get(`/dashboard/cases?category=review&q=${encodeURIComponent(id)}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(sessions[1]!.case_id);
    expect(res.body).not.toContain(sessions[0]!.case_id);
    expect(res.body).not.toContain(sessions[2]!.case_id);
  });

  it('finds a case by its own id, and says so when nothing matches', async () => {
    expect((await get(`/dashboard/cases?q=${sessions[2]!.case_id}`)).body).toContain(`/dashboard/cases/${sessions[2]!.case_id}`);
    const none = await get('/dashboard/cases?q=nope-123');
    expect(none.statusCode).toBe(200);
    expect(none.body).toContain('No case in this environment matches “nope-123”.');
  });

  it('finds a case by the applicant’s name or email, by part of an id and by a value read from a document, in any letter case; the tabs count what it finds (issue 27 §3)', async () => {
    // A workspace of its own: the other tests count this one's cases.
    const own = await t.workspace({ name: 'Search' });
    await withExampleCaseTypes(t, own.orgId);
    const op = await newOperator(t, own.orgId, 'reviewer');
    const ownCookie = (await signInOperator(t, op.email, op.password)).cookie;
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: ownCookie } });
    const mine = await newSession(t, own, 'income_verification', { external_case_id: 'loan-2' });
    const named = await newSession(t, own, 'income_verification', { prefill: { full_name: 'Zofia Wiśniewska', email: 'zofia@example.pl' } });
    const other = await newSession(t, own, 'income_verification', { prefill: { full_name: 'Jane Doe' } });
    await addProcessedDocument(t, other.case_id, 'pay_stub', { employee_name: 'Jane Doe', employer_name: 'Kowalczyk Transport', pay_date: '2026-03-01', gross_pay: '2150.00' });
    const byName = (await get(`/dashboard/cases?q=${encodeURIComponent('WIśNIEWSKA')}`)).body;
    expect(byName).toContain(named.case_id);
    expect(byName).not.toContain(other.case_id);
    expect(byName).toMatch(/Intake <span class="tabs__count">1</);
    expect((await get('/dashboard/cases?q=Zofia%40Example')).body).toContain(named.case_id);
    const byFact = (await get('/dashboard/cases?q=kowalczyk')).body;
    expect(byFact).toContain(other.case_id);
    expect(byFact).not.toContain(named.case_id);
    expect((await get('/dashboard/cases?q=oan-2')).body).toContain(mine.case_id);
    // A key is not a value ("full_name" is in every case's answers), and LIKE's wildcards are taken literally.
    expect((await get('/dashboard/cases?q=full_name')).body).toContain('No case in this environment matches');
    expect((await get('/dashboard/cases?q=%25')).body).toContain('No case in this environment matches');
  });

  it('filters by runtime status and case type', async () => {
    expect((await get('/dashboard/cases?category=all&status=intake_in_progress')).body).toContain(sessions[0]!.case_id);
    expect((await get('/dashboard/cases?category=all&status=ready_for_review')).body).not.toContain(sessions[0]!.case_id);
    expect((await get('/dashboard/cases?category=all&type=address_proof')).body).not.toContain(sessions[0]!.case_id);
  });

  it('counts open categories on every read and reuses the done count for a minute unless told to forget it', async () => {
    const doneCounts = new DoneCountCache();
    const tenant = { orgId: ws.orgId, environment: 'test' as const };
    const counts = () => queueCategoryCounts({ ...t.ctx, doneCounts }, tenant);
    expect(await counts()).toMatchObject({ intake: 3, done: 0 });
    const moved = sessions[2]!.case_id;
    await t.ctx.db.updateTable('cases').set({ queue_category: 'done' }).where('case_id', '=', moved).execute();
    try {
      // Open categories are exact at once; the done count is the one read a moment ago.
      expect(await counts()).toMatchObject({ intake: 2, done: 0 });
      clock.advance(DONE_COUNT_TTL_MS);
      expect(await counts()).toMatchObject({ intake: 2, done: 1 });
      await t.ctx.db.updateTable('cases').set({ queue_category: 'intake' }).where('case_id', '=', moved).execute();
      doneCounts.forget(tenant);
      expect(await counts()).toMatchObject({ intake: 3, done: 0 });
    } finally {
      await t.ctx.db.updateTable('cases').set({ queue_category: 'intake' }).where('case_id', '=', moved).execute();
    }
  });

  it('pages with a keyset cursor and refuses a forged one with a page', async () => {
    const first = await get('/dashboard/cases?category=intake');
    expect(first.body).not.toContain('Next page');
    const bad = await get('/dashboard/cases?category=intake&after=bm9wZQ');
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toContain('text/html');
  });

  it('shows counts per queue category and 14-day charts drawn as SVG with their numbers as text', async () => {
    const res = await get('/dashboard');
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/<span class="stat__value">3<\/span><span class="stat__label">Intake<\/span>/);
    expect(res.body).toContain('<svg class="chart"');
    expect(res.body).toContain('Cases created and completed per day: the numbers');
    expect(res.body).toContain('3 created, 0 completed.');
    expect(res.body).toContain('Webhook deliveries per day by outcome');
    // The text alternative has a row per day: 14 of them in each chart's table.
    expect(res.body.match(/<th scope="row">/g)).toHaveLength(28);
  });

  it('is scoped to the environment of the session', async () => {
    const home = await get('/dashboard');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(home.body)![1]!;
    await t.app.inject({ method: 'POST', url: '/dashboard/environment', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: `_csrf=${csrf}&environment=live` });
    const live = await get('/dashboard/cases?category=all');
    expect(live.body).not.toContain(sessions[0]!.case_id);
    await t.app.inject({ method: 'POST', url: '/dashboard/environment', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: `_csrf=${csrf}&environment=test` });
  });
});
