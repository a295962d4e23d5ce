import { afterAll, beforeAll, expect, it } from 'vitest';
import { saveFormAnswers } from '../../src/domain/intake/submit-intake.ts';
import { searchQueue } from '../../src/storage/queue.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { ManualClock } from '../../src/ports/clock.ts';

/**
 * Issue 27 §3, speed: the queue search reads `cases.search_text` (migration 0028), which the
 * database keeps for every write, and finds the page and the tabs' counts in one statement.
 */
describeEachBackend('queue search', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  const clock = new ManualClock('2026-04-01T09:00:00.000Z');
  const search = (term: string, extra: { limit?: number; runtimeStatus?: string; after?: { sortTimestamp: Date; caseId: string } } = {}) =>
    searchQueue(t.ctx.db, { orgId: ws.orgId, environment: 'test', limit: extra.limit ?? 50, ...extra }, term);
  const ids = async (term: string) => (await search(term)).rows.map((r) => r.case_id).sort();

  beforeAll(async () => {
    t = await createTestApp(backend, { clock });
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
  });
  afterAll(() => t.close());

  it('follows the answers as they change: what a case says now matches, what it said before and the keys do not', async () => {
    const s = await newSession(t, ws, 'income_verification', { external_case_id: 'loan-77', external_applicant_id: 'applicant-77' });
    const answer = async (answers: Record<string, unknown>) => {
      const saved = await saveFormAnswers(t.ctx, { sessionId: s.session_id, token: s.token, traceId: 'test', answers });
      expect(saved.ok).toBe(true);
    };
    await answer({ full_name: 'Olek Brzęczyszczykiewicz', email: 'olek@example.com' });
    expect(await ids('BRZĘCZY')).toEqual([s.case_id]);
    await answer({ full_name: 'Olek Nowicki' });
    expect(await ids('brzęczy')).toEqual([]);
    expect(await ids('nowicki')).toEqual([s.case_id]);
    // Keys are not values; a part of an external id is.
    expect(await ids('full_name')).toEqual([]);
    expect(await ids('email')).toEqual([]);
    expect(await ids('an-77')).toEqual([s.case_id]);
    // One value at a time: a term never spans two of them, whatever separates them in the stored text.
    expect(await ids('loan-77\napplicant')).toEqual([]);
    expect(await ids('nowicki\nolek')).toEqual([]);
    const lines = await newSession(t, ws, 'income_verification', { prefill: { notes: 'Ulica Długa 1\nKraków' } });
    expect(await ids('DŁUGA 1\nkrak')).toEqual([lines.case_id]);
  });

  it('looks an id up by its digits and an email by its part up to the @, but matches only the whole term', async () => {
    const loan = await newSession(t, ws, 'income_verification', { external_case_id: 'loan-4711' });
    const file = await newSession(t, ws, 'income_verification', { external_case_id: 'file-4711', prefill: { phone: '+48 600 4711 22' } });
    expect(await ids('LOAN-4711')).toEqual([loan.case_id]);
    expect(await ids('4711')).toEqual([loan.case_id, file.case_id].sort());
    expect(await ids('600 4711')).toEqual([file.case_id]);
    const com = await newSession(t, ws, 'income_verification', { prefill: { email: 'zofia.w@example.com' } });
    const pl = await newSession(t, ws, 'income_verification', { prefill: { email: 'zofia.w@example.pl' } });
    expect(await ids('Zofia.W@Example.PL')).toEqual([pl.case_id]);
    expect(await ids('zofia.w@')).toEqual([com.case_id, pl.case_id].sort());
    expect(await ids('@example.pl')).toEqual([pl.case_id]);
    // LIKE's wildcards are characters like any other.
    expect(await ids('zofia_w@')).toEqual([]);
    expect(await ids('zofia%')).toEqual([]);
  });

  it('counts what it finds per category whatever the page shows, and pages with the keyset', async () => {
    const found: string[] = [];
    for (let i = 0; i < 3; i++) {
      found.push((await newSession(t, ws, 'income_verification', { prefill: { full_name: `Quentin Marlowe ${i}` } })).case_id);
      clock.advance(60_000);
    }
    const first = await search('marlowe', { limit: 2 });
    expect(first.counts).toEqual({ intake: 3 });
    expect(first.rows.map((r) => r.case_id)).toEqual(found.slice(0, 2));
    expect(first.hasMore).toBe(true);
    const last = first.rows.at(-1)!;
    const second = await search('marlowe', { limit: 2, after: { sortTimestamp: last.status_changed_at, caseId: last.case_id } });
    expect(second.rows.map((r) => r.case_id)).toEqual(found.slice(2));
    expect(second.hasMore).toBe(false);
    expect(second.counts).toEqual({ intake: 3 });
    // A filter narrows the page, not the counts; an empty page still has them.
    const none = await search('marlowe', { runtimeStatus: 'complete' });
    expect(none.rows).toEqual([]);
    expect(none.counts).toEqual({ intake: 3 });
    expect(await search('nobody-at-all')).toEqual({ rows: [], hasMore: false, counts: {} });
  });
});
