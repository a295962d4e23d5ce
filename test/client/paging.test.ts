import type { CaseEvent, Dossier } from '@dossier/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { appendCaseEvent } from '../../src/storage/case-events.ts';
import { inTransaction } from '../../src/storage/unit-of-work.ts';
import { dossierFor, injectFetch } from '../support/dossier-client.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';

const ADDED = 1_200;

describeEachBackend('cursor paging with the client', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let dossier: Dossier;
  let caseId: string;
  let total: number;
  let requests = 0;

  beforeAll(async () => {
    t = await createTestApp(backend);
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
    const inject = injectFetch(t.app);
    dossier = dossierFor(t, ws, {
      fetch: (url, init) => {
        requests += 1;
        return inject(url, init);
      },
    });
    caseId = (await dossier.sessions.create({ case_type_id: 'income_verification' })).case_id;
    const session = await newSession(t, ws, 'address_proof');
    expect(session.case_id).not.toBe(caseId);
    await inTransaction(t.ctx.db, async (tx) => {
      for (let i = 0; i < ADDED; i++) {
        await appendCaseEvent(tx, { eventId: `evt_paging_${i}`, caseId, orgId: ws.orgId, environment: 'test', eventType: 'document.uploaded', data: { n: i }, createdAt: t.clock.now() });
      }
    });
    // Cursors are gapless from 1, so the last one counts the events (the session's own among them).
    total = Number((await t.ctx.db.selectFrom('cases').select('last_event_cursor').where('case_id', '=', caseId).executeTakeFirstOrThrow()).last_event_cursor);
    expect(total).toBeGreaterThan(ADDED);
  }, 120_000);
  afterAll(() => t.close());

  it(`follows next_cursor through ${ADDED}+ events, in order, without gaps or repeats`, async () => {
    requests = 0;
    const seen: CaseEvent[] = [];
    const stream = dossier.cases.events(caseId);
    for await (const event of stream) seen.push(event);
    expect(seen).toHaveLength(total);
    expect(seen.map((e) => e.cursor)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(new Set(seen.map((e) => e.event_id)).size).toBe(total);
    expect(seen.filter((e) => e.event_type === 'document.uploaded').map((e) => e.data.n)).toEqual(Array.from({ length: ADDED }, (_, i) => i));
    // Default page size 100: one request per page, the last one saying has_more false.
    expect(requests).toBe(Math.ceil(total / 100));
    expect(stream.cursor).toBe(total);
  });

  it('pages by the limit asked for, and exposes each page with its response', async () => {
    requests = 0;
    const pages = [];
    for await (const page of dossier.cases.events(caseId, { limit: 500 }).pages()) pages.push(page);
    expect(pages.map((p) => p.events.length)).toEqual([500, 500, total - 1000]);
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false]);
    expect(pages.map((p) => p.next_cursor)).toEqual([500, 1000, total]);
    expect(pages[0]!.lastResponse).toMatchObject({ status: 200, rateLimit: { limit: 600 } });
    expect(requests).toBe(3);
  });

  it('resumes from a stored cursor, and stops early without reading further pages', async () => {
    const first = dossier.cases.events(caseId, { limit: 250 });
    let handled = 0;
    for await (const _ of first) if (++handled === 700) break;
    expect(first.cursor).toBe(700);
    requests = 0;
    const rest: number[] = [];
    for await (const event of dossier.cases.events(caseId, { afterCursor: first.cursor, limit: 250 })) rest.push(event.cursor);
    expect(rest[0]).toBe(701);
    expect(rest.at(-1)).toBe(total);
    expect(rest).toHaveLength(total - 700);
    expect(requests).toBe(Math.ceil((total - 700) / 250));
  });

  it('reports a bad limit with its catalog code', async () => {
    const error = await (async () => {
      for await (const _ of dossier.cases.events(caseId, { limit: 501 })) return null;
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: 'invalid_limit' });
  });

  it('pages the queue with starting_after, as pages or as rows', async () => {
    const sizes = [];
    for await (const page of dossier.cases.list({ limit: 1 })) sizes.push(page.data.length);
    expect(sizes).toEqual([1, 1]);
    const rows = [];
    for await (const row of dossier.cases.list({ limit: 1 }).items()) rows.push(row.case_id);
    expect(rows).toHaveLength(2);
    expect(rows).toContain(caseId);
    expect((await dossier.cases.list({ limit: 50 }).first()).data).toHaveLength(2);
  });
});
