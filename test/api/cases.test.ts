import { PreconditionError, type Dossier } from '@dossier/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordCaseEvent } from '../../src/domain/cases/case-events.ts';
import { findCase } from '../../src/storage/cases.ts';
import { inTransaction } from '../../src/storage/unit-of-work.ts';
import { ManualClock } from '../../src/ports/clock.ts';
import { createTestApp, describeEachBackend, itOnPostgres, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { dossierError, dossierFor } from '../support/dossier-client.ts';
import { newSession, uniqueKey, withExampleCaseTypes } from '../support/fixtures.ts';

/** One page of a case's event log, as one request. */
function firstPage(dossier: Dossier, caseId: string, afterCursor = 0, limit?: number) {
  return dossier.request('listCaseEvents', { path: { case_id: caseId }, query: { after_cursor: afterCursor, ...(limit !== undefined ? { limit } : {}) } });
}

describeEachBackend('case reads', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let dossier: Dossier;
  let caseId: string;
  const clock = new ManualClock('2026-06-15T12:00:00.000Z');

  beforeAll(async () => {
    t = await createTestApp(backend, { clock });
    ws = await t.workspace();
    dossier = dossierFor(t, ws);
    await withExampleCaseTypes(t, ws.orgId);
    caseId = (await newSession(t, ws, 'income_verification', { external_case_id: 'ext-7' })).case_id;
  });
  afterAll(() => t.close());

  /** Raw HTTP for the query strings the typed client never sends. */
  const get = (url: string, key = ws.key) => t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });

  describe('GET /api/v1/cases/{case_id}', () => {
    it('returns every field of the record, with empty arrays and nulls where nothing exists yet', async () => {
      const c = await dossier.cases.retrieve(caseId);
      expect(c.lastResponse.status).toBe(200);
      expect(c).toMatchObject({
        case_id: caseId,
        case_type_id: 'income_verification',
        workflow_id: 'income_verification',
        workflow_version: 'v1',
        operating_mode: 'system_of_action',
        runtime_status: 'intake_in_progress',
        external_case_id: 'ext-7',
        handoff: null,
      });
      expect(Object.keys(c.workspace).sort()).toEqual(
        ['actions', 'current_gate_id', 'current_gate_title', 'current_node_id', 'current_node_title', 'documents', 'facts', 'intake_session', 'jobs', 'next_action', 'operational_summary', 'structured_inputs', 'summary'].sort(),
      );
      expect(c.workspace).toMatchObject({
        current_node_id: 'applicant',
        current_node_title: 'About you',
        current_gate_id: null,
        current_gate_title: null,
        documents: [],
        jobs: [],
        structured_inputs: {},
        summary: { resolved_count: 0, needs_input_count: 0, failed_count: 0, document_count: 0 },
      });
      expect(c.workspace.facts.map((f) => f.fact_id)).toEqual(['employee_name', 'employer_name', 'pay_date', 'gross_pay']);
      for (const f of c.workspace.facts) {
        expect(f).toMatchObject({ status: 'pending', value: null, reason_codes: [], provenance: [], evidence: [], verification_metadata: [] });
      }
      expect(c.workspace.operational_summary).toMatchObject({
        blocking_items: [],
        blocking_fact_ids: [],
        has_needs_input_facts: false,
        has_failed_facts: false,
        primary_action: null,
        ownership: null,
        reason: { queue_category: 'intake', queue_status: 'waiting_on_applicant', why_here_code: 'awaiting_applicant_submission', current_node_id: 'applicant', current_gate_id: null },
      });
      const reason = c.workspace.operational_summary.reason;
      expect(c.queue_row).toMatchObject({
        case_id: caseId,
        runtime_status: 'intake_in_progress',
        queue_category: reason.queue_category,
        queue_status: reason.queue_status,
        why_here: reason.why_here,
        why_here_code: reason.why_here_code,
        blocking_items: [],
        blocking_fact_ids: [],
        sort_timestamp: '2026-06-15T12:00:00.000Z',
      });
      expect(c.workspace.intake_session).toMatchObject({ status: 'open', submitted_at: null });
      expect(c.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('is not_found for another workspace and for the other environment', async () => {
      const other = await t.workspace();
      expect((await dossierError(dossierFor(t, other).cases.retrieve(caseId))).code).toBe('not_found');
      const live = await t.createKey(ws.orgId, { environment: 'live' });
      const error = await dossierError(dossierFor(t, live.key).cases.retrieve(caseId));
      expect(error.status).toBe(404);
      expect(error.code).toBe('not_found');
      expect((await dossierError(dossier.cases.retrieve('case_doesnotexist'))).status).toBe(404);
    });

    it('answers missing_case_id for an empty segment', async () => {
      for (const [what, call] of [
        ['case', () => dossier.cases.retrieve('')],
        ['events', () => firstPage(dossier, '')],
        ['package', () => dossier.cases.package('')],
      ] as const) {
        const error = await dossierError(call());
        expect(error.status, what).toBe(400);
        expect(error.code).toBe('missing_case_id');
      }
    });

    it('needs cases:read', async () => {
      const writer = dossierFor(t, (await t.createKey(ws.orgId, { scopes: ['sessions:write'] })).key);
      for (const call of [() => writer.cases.retrieve(caseId), () => firstPage(writer, caseId), () => writer.cases.package(caseId)]) {
        expect((await dossierError(call())).status).toBe(403);
      }
    });
  });

  describe('GET /api/v1/cases/{case_id}/events', () => {
    it('pages by cursor with next_cursor and has_more', async () => {
      const pages = [];
      for await (const page of dossier.cases.events(caseId, { limit: 1 }).pages()) pages.push(page);
      expect(pages).toHaveLength(2);
      expect(pages[0]).toMatchObject({ case_id: caseId, next_cursor: 1, has_more: true });
      expect(pages[0]!.events).toEqual([expect.objectContaining({ event_type: 'case.created', cursor: 1, event_id: expect.stringMatching(/^evt_/) })]);
      expect(pages[1]).toMatchObject({ next_cursor: 2, has_more: false });
      expect(pages[1]!.events[0]!.event_type).toBe('session.created');
      expect(await firstPage(dossier, caseId, 2)).toEqual({ case_id: caseId, events: [], next_cursor: 2, has_more: false });
      const cursors = [];
      for await (const event of dossier.cases.events(caseId)) cursors.push(event.cursor);
      expect(cursors).toEqual([1, 2]);
    });

    it('answers invalid_after_cursor and invalid_limit', async () => {
      for (const q of ['after_cursor=abc', 'after_cursor=1.5', 'after_cursor=-1', 'after_cursor=', 'after_cursor=99999999999']) {
        const res = await get(`/api/v1/cases/${caseId}/events?${q}`);
        expect(res.statusCode, q).toBe(400);
        expect(res.json().error.code, q).toBe('invalid_after_cursor');
      }
      for (const q of ['limit=0', 'limit=501', 'limit=abc', 'limit=2.5', 'limit=', 'limit=-3']) {
        const res = await get(`/api/v1/cases/${caseId}/events?${q}`);
        expect(res.statusCode, q).toBe(400);
        expect(res.json().error.code, q).toBe('invalid_limit');
      }
      expect((await get(`/api/v1/cases/${caseId}/events?limit=500`)).statusCode).toBe(200);
      expect((await get(`/api/v1/cases/${caseId}/events?limit=1&after_cursor=0`)).statusCode).toBe(200);
    });

    it('is not_found for another workspace', async () => {
      const other = await t.workspace();
      expect((await dossierError(firstPage(dossierFor(t, other), caseId))).status).toBe(404);
    });

    itOnPostgres(backend, 'a poller running against concurrent writers never misses or repeats an event', async () => {
      const writers = 4;
      const perWriter = 25;
      const row = (await findCase(t.ctx.db, { orgId: ws.orgId, environment: 'test' }, caseId))!;
      const before = (await firstPage(dossier, caseId, 0, 500)).next_cursor;
      let writing = true;
      const write = async (w: number) => {
        for (let i = 0; i < perWriter; i++) {
          await inTransaction(t.ctx.db, async (tx) => {
            await recordCaseEvent(tx, t.ctx, { caseRow: row, eventType: 'test.tick', data: { writer: w, i }, cause: { traceId: 'test', idempotencyKey: null } });
            // Hold the transaction open a moment so commits interleave with polls.
            if (i % 5 === 0) await new Promise((r) => setTimeout(r, 2));
          });
        }
      };
      const seen: number[] = [];
      const poll = async () => {
        let cursor = before;
        for (;;) {
          // Only a page asked for after every write committed may end the poll: an empty page
          // asked for before the last commit says nothing about it (seen once under load).
          const afterWrites = !writing;
          const page = await firstPage(dossier, caseId, cursor, 7);
          for (const e of page.events) seen.push(e.cursor);
          cursor = page.next_cursor;
          if (afterWrites && !page.has_more && page.events.length === 0) return;
        }
      };
      const poller = poll();
      await Promise.all(Array.from({ length: writers }, (_, w) => write(w)));
      writing = false;
      await poller;
      const expected = Array.from({ length: writers * perWriter }, (_, i) => before + i + 1);
      expect(seen).toEqual(expected);
    });
  });

  describe('GET /api/v1/cases/{case_id}/package and the case file', () => {
    it('returns the package with a signed case file link that serves a PDF', async () => {
      const pkg = await dossier.cases.package(caseId);
      expect(pkg.lastResponse.status).toBe(200);
      expect(pkg.case_id).toBe(caseId);
      expect(Object.keys(pkg.facts)).toEqual(['employee_name', 'employer_name', 'pay_date', 'gross_pay']);
      expect(pkg.documents).toEqual([]);
      expect(pkg.contents_sha256).toMatch(/^[0-9a-f]{64}$/);
      const link = new URL(pkg.case_file_url!);
      expect(link.pathname).toBe(`/app/case-files/${caseId}`);
      expect(link.searchParams.get('token')).toBeTruthy();
      const pdf = await t.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
      expect(pdf.statusCode).toBe(200);
      expect(pdf.headers['content-type']).toBe('application/pdf');
      expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    });

    it('refuses forged, foreign and expired case file tokens', async () => {
      const link = new URL((await dossier.cases.package(caseId)).case_file_url!);
      const token = link.searchParams.get('token')!;
      const forged = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA');
      for (const url of [
        `${link.pathname}?token=${forged}`,
        `${link.pathname}`,
        `${link.pathname}?token=garbage`,
        `/app/case-files/case_other?token=${token}`,
      ]) {
        const res = await t.app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(403);
        expect(res.json().error.code).toBe('forbidden');
      }
      clock.advance(3601_000);
      const expired = await t.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
      clock.set('2026-06-15T12:00:00.000Z');
      expect(expired.statusCode).toBe(403);
      expect(expired.json().error.message).toMatch(/expired/);
    });
  });
});

describeEachBackend('package without an applicant app (APP_URL=none)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(backend, { env: { APP_URL: 'none' } });
  });
  afterAll(() => t.close());

  it('has case_file_url null, and sessions say why they cannot be created', async () => {
    const ws = await t.workspace();
    const dossier = dossierFor(t, ws);
    await withExampleCaseTypes(t, ws.orgId);
    const error = await dossierError(dossier.sessions.create({ case_type_id: 'income_verification' }, { idempotencyKey: uniqueKey() }));
    expect(error.status).toBe(428);
    expect(error).toBeInstanceOf(PreconditionError);
    expect(error.code).toBe('precondition_required');
    // A case without a session (as /process creates) still has a package.
    const { openCase } = await import('../../src/domain/cases/open-case.ts');
    const { loadPinnedDefinition } = await import('../../src/domain/case-types/case-types.ts');
    const definition = await loadPinnedDefinition(t.ctx, { tenant: { orgId: ws.orgId, environment: 'test' }, caseTypeId: 'address_proof', workflowVersion: 'v1' });
    const row = await inTransaction(t.ctx.db, (tx) =>
      openCase(tx, t.ctx, {
        orgId: ws.orgId, environment: 'test', caseTypeId: 'address_proof', workflowVersion: 'v1', definition, origin: 'process',
        externalCaseId: null, externalApplicantId: null, externalCustomerId: null, metadata: {}, locale: null, prefill: {}, structuredInputs: {},
        cause: { traceId: 't', idempotencyKey: null },
      }),
    );
    const pkg = await dossier.cases.package(row.case_id);
    expect(pkg.lastResponse.status).toBe(200);
    expect(pkg.case_file_url).toBeNull();
  });
});
