import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { withExampleCaseTypes } from '../support/fixtures.ts';
import { csrfOf, form, FORM, newOperator, signInOperator } from '../support/web.ts';
import { startDocumentServer } from '../documents/document-server.ts';
import { payStubPdf, processedCase } from './console-fixtures.ts';
import { listCaseEvents } from '../../src/storage/case-events.ts';

/**
 * Issue 27 §3: the queue names the applicant and the case type, shows ids short with the whole
 * value kept, and who has each case; an operator takes a case ("Assign to me"), filters Mine and
 * Unassigned, and after a decision goes on to the next case of the same tab.
 */
describeEachBackend('dashboard: the queue’s columns, assignment and the next case', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let docs: Awaited<ReturnType<typeof startDocumentServer>>;
  let me: { cookie: string; operatorId: string; email: string };
  let colleague: { cookie: string; operatorId: string; email: string };
  const cases: string[] = [];
  const clock = new ManualClock('2026-06-15T08:00:00.000Z');

  beforeAll(async () => {
    docs = await startDocumentServer({ '/stub.pdf': { body: await payStubPdf(1), type: 'application/pdf' } });
    t = await createTestApp(backend, { clock, env: { DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' } });
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
    for (const [i, name] of ['Amara Okafor', 'Luis Garcia', 'Mei Chen'].entries()) {
      cases.push((await processedCase(t, ws, docs.url('/stub.pdf'), `loan-${i}`, name)).caseId);
      clock.advance(10 * 60_000);
    }
    const signIn = async (role: 'admin' | 'reviewer') => {
      const op = await newOperator(t, ws.orgId, role);
      return { cookie: (await signInOperator(t, op.email, op.password)).cookie, operatorId: op.operator_id, email: op.email };
    };
    me = await signIn('reviewer');
    colleague = await signIn('reviewer');
  }, 90_000);
  afterAll(async () => {
    await t?.close();
    await docs?.close();
  });

  const get = (who: { cookie: string }, url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: who.cookie } });
  const post = async (who: { cookie: string }, page: string, url: string, fields: Record<string, string>) => {
    const csrf = csrfOf((await get(who, page)).body);
    return t.app.inject({ method: 'POST', url, headers: { ...FORM, cookie: who.cookie }, payload: form({ _csrf: csrf, ...fields }) });
  };
  const rowOf = (body: string, caseId: string) => {
    const at = body.indexOf(`/dashboard/cases/${caseId}"`);
    return at < 0 ? '' : body.slice(at, body.indexOf('</tr>', at));
  };

  it('names the applicant and the case type, and shows each id short with the whole value for hover and screen readers', async () => {
    const res = await get(me, '/dashboard/cases?category=exception');
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/<th[^>]*>Applicant<\/th>/);
    expect(res.body).toMatch(/<th[^>]*>Assignee<\/th>/);
    const row = rowOf(res.body, cases[0]!);
    expect(row).toContain('Amara Okafor');
    expect(row).toContain('Income verification');
    expect(row).not.toContain('>income_verification<');
    // The id: short on screen, whole in the title and for screen readers, never wrapped mid-word.
    const short = `${cases[0]!.slice(0, 10)}…${cases[0]!.slice(-4)}`;
    expect(row).toContain(`title="${cases[0]}"`);
    expect(row).toContain(`<span aria-hidden="true">${short}</span><span class="visually-hidden">${cases[0]}</span>`);
    expect(row).toContain('Unassigned');
    expect((await get(me, '/dashboard/cases?q=okafor')).body).toContain(cases[0]!);
  });

  it('assigns a case to the operator who takes it, records it with them as actor, and filters Mine and Unassigned', async () => {
    const page = `/dashboard/cases/${cases[1]}`;
    expect((await get(me, page)).body).toContain('Assign to me');
    const taken = await post(me, page, `${page}/assignment`, { assign: 'me' });
    expect(taken.statusCode).toBe(303);
    expect(taken.headers.location).toBe(`${page}?notice=assigned`);
    const shown = (await get(me, taken.headers.location!)).body;
    expect(shown).toContain('You have taken this case.');
    expect(shown).toMatch(/Assigned to <strong>you<\/strong>/);
    expect(shown).toContain('Unassign');
    expect(shown).toContain('Assigned to themselves');
    // A colleague sees who has it, by email.
    expect((await get(colleague, page)).body).toContain(`Assigned to <strong>${me.email}</strong>`);

    const events = (await listCaseEvents(t.ctx.db, { orgId: ws.orgId, environment: 'test' }, cases[1]!, 0, 100)).events.filter((e) => e.event_type === 'case.assigned');
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ assignee: me.operatorId, actor: me.operatorId, previous: null });

    const queue = (await get(me, '/dashboard/cases?category=exception')).body;
    expect(rowOf(queue, cases[1]!)).toContain('You');
    expect(rowOf((await get(colleague, '/dashboard/cases?category=exception')).body, cases[1]!)).toContain(me.email);
    const mine = (await get(me, '/dashboard/cases?category=all&assigned=mine')).body;
    expect(mine).toContain(cases[1]!);
    expect(mine).not.toContain(cases[0]!);
    const unassigned = (await get(me, '/dashboard/cases?category=all&assigned=unassigned')).body;
    expect(unassigned).toContain(cases[0]!);
    expect(unassigned).not.toContain(cases[1]!);
    expect((await get(colleague, '/dashboard/cases?category=all&assigned=mine')).body).not.toContain(cases[1]!);
  });

  it('after a decision, Next case goes to the oldest case of the same tab that is not someone else’s', async () => {
    // The cases wait in the Exceptions tab (their name check failed). The colleague takes the second case; the next after deciding the first is the third.
    const second = `/dashboard/cases/${cases[1]}`;
    expect((await post(colleague, second, `${second}/assignment`, { assign: 'me' })).statusCode).toBe(303);
    const first = `/dashboard/cases/${cases[0]}`;
    expect((await get(me, first)).body).toContain('name="from" value="exception"');
    const decided = await post(me, first, `${first}/decision`, { decision: 'approve', reason: '', from: 'exception' });
    expect(decided.statusCode).toBe(303);
    expect(decided.headers.location).toBe(`${first}?notice=approved&from=exception`);
    const done = (await get(me, decided.headers.location!)).body;
    expect(done).toContain(`href="/dashboard/cases/next?category=exception&amp;after=${cases[0]}"`);
    expect(done).toContain('aria-keyshortcuts="n"');
    const next = await get(me, `/dashboard/cases/next?category=exception&after=${cases[0]}`);
    expect(next.statusCode).toBe(303);
    expect(next.headers.location).toBe(`/dashboard/cases/${cases[2]}`);
    // With nothing left for them, back to the tab, saying so.
    const third = `/dashboard/cases/${cases[2]}`;
    await post(me, third, `${third}/decision`, { decision: 'approve', reason: '', from: 'exception' });
    const none = await get(me, `/dashboard/cases/next?category=exception&after=${cases[2]}`);
    expect(none.headers.location).toBe('/dashboard/cases?category=exception&notice=queue_empty');
    expect((await get(me, none.headers.location!)).body).toContain('No other case in this tab is waiting for you.');
    // A completed case cannot be taken.
    const late = await post(me, first, `${first}/assignment`, { assign: 'me' });
    expect(late.statusCode).toBe(400);
  });
});
