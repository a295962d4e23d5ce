/**
 * Session creation in one statement (issue 29, part D; migration 0029): the same answers as the
 * general path whatever moved since the process remembered the gates, and the column lists of
 * the function kept in step with the tables.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SessionCreateParams } from '@dossier/client';
import { forgetGates, rememberedGates } from '../../src/domain/sessions/gate-memory.ts';
import { forgetCommittedAnswers } from '../../src/domain/idempotency/idempotency.ts';
import { updateOrg } from '../../src/domain/orgs/orgs.ts';
import { putCaseType } from '../../src/domain/case-types/case-types.ts';
import { CREATION_COLUMNS } from '../../src/storage/session-creation.ts';
import { createTestApp, describeEachBackend, itOnPostgres, type TestApp } from '../support/harness.ts';
import { incomeVerification, uniqueKey, withExampleCaseTypes } from '../support/fixtures.ts';
import { dossierError, dossierFor, statusOf } from '../support/dossier-client.ts';

describeEachBackend('POST /api/v1/sessions in one statement', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(backend);
  });
  afterAll(() => t.close());

  const create = (key: string, body: SessionCreateParams, idem = uniqueKey()) => dossierFor(t, key).sessions.create(body, { idempotencyKey: idem });
  const statements = () => t.runtime.database.poolStats().statements;

  /** A live workspace whose gates this process remembers after one creation. */
  async function liveWorkspace() {
    const org = await t.workspace();
    await withExampleCaseTypes(t, org.orgId);
    await updateOrg(t.ctx, { orgId: org.orgId, billing: 'active' });
    const live = await t.createKey(org.orgId, { environment: 'live' });
    expect(await statusOf(create(live.key, { case_type_id: 'income_verification' }))).toBe(201);
    expect(rememberedGates({ orgId: org.orgId, environment: 'live' }, 'income_verification')).toBeDefined();
    return { org, live };
  }

  it('writes what the general path writes', async () => {
    const { org, live } = await liveWorkspace();
    const body = { case_type_id: 'income_verification', external_case_id: `x-${uniqueKey()}`, prefill: { full_name: 'Ann Lee' }, metadata: { branch: 'north' }, locale: 'fr' };
    const before = statements();
    const atOnce = await create(live.key, body);
    expect(statements() - before).toBe(1);
    forgetGates({ orgId: org.orgId, environment: 'live' }, 'income_verification');
    const general = await create(live.key, { ...body, external_case_id: `x-${uniqueKey()}` });
    const rowsOf = async (caseId: string) => {
      const strip = <T extends Record<string, unknown>>(row: T) => {
        const { case_id: _c, session_id: _s, event_id: _e, created_at: _a, updated_at: _u, status_changed_at: _sc, external_case_id: _x, token_hash: _h, expires_at: _ex, data: _d, queue_row: _q, search_text: _t, ...rest } = row;
        return rest;
      };
      const cases = await sql<Record<string, unknown>>`select * from cases where case_id = ${caseId}`.execute(t.ctx.db);
      const facts = await sql<Record<string, unknown>>`select * from facts where case_id = ${caseId} order by fact_id`.execute(t.ctx.db);
      const events = await sql<Record<string, unknown>>`select * from case_events where case_id = ${caseId} order by cursor`.execute(t.ctx.db);
      const sessions = await sql<Record<string, unknown>>`select * from sessions where case_id = ${caseId}`.execute(t.ctx.db);
      return { cases: cases.rows.map(strip), facts: facts.rows.map(strip), events: events.rows.map(strip), sessions: sessions.rows.map(strip) };
    };
    const [a, g] = [await rowsOf(atOnce.case_id), await rowsOf(general.case_id)];
    expect(a.events).toHaveLength(2);
    expect(a.facts).toEqual([]); // pending facts have no rows
    expect(a).toEqual(g);
    const usage = await sql<{ n: number }>`select sum(sessions_created)::int as n from usage_counters where org_id = ${org.orgId} and environment = 'live'`.execute(t.ctx.db);
    expect(usage.rows[0]!.n).toBe(3);
  });

  it('answers a replay and a conflict of a key it did not create from the key record, in one statement', async () => {
    const { org, live } = await liveWorkspace();
    const idem = uniqueKey();
    const body = { case_type_id: 'income_verification', external_case_id: `r-${idem}` };
    const first = await create(live.key, body, idem);
    // As another process: its own copy of answers empty.
    forgetCommittedAnswers();
    const before = statements();
    const replay = await create(live.key, body, idem);
    expect(statements() - before).toBe(1);
    expect(replay).toEqual({ ...first, idempotent_replay: true });
    forgetCommittedAnswers();
    const conflict = await dossierError(create(live.key, { ...body, metadata: { other: 'body' } }, idem));
    expect(conflict).toMatchObject({ code: 'idempotency_key_conflict' });
    // A new key for a taken external id: the general path words the conflict, and nothing is written.
    const taken = await dossierError(create(live.key, body));
    expect(taken).toMatchObject({ code: 'external_case_id_conflict' });
    const cases = await sql<{ n: number }>`select count(*)::int as n from cases where org_id = ${org.orgId} and external_case_id = ${body.external_case_id}`.execute(t.ctx.db);
    expect(cases.rows[0]!.n).toBe(1);
  });

  it('gives the general answer when the workspace moved after the process remembered it', async () => {
    const { org, live } = await liveWorkspace();
    await updateOrg(t.ctx, { orgId: org.orgId, billing: 'inactive' });
    expect(await dossierError(create(live.key, { case_type_id: 'income_verification' }))).toMatchObject({ status: 402, code: 'billing_required' });
    await updateOrg(t.ctx, { orgId: org.orgId, billing: 'active' });
    expect(await statusOf(create(live.key, { case_type_id: 'income_verification' }))).toBe(201);
    // The cap lowered to what is used: refused although the remembered workspace had no cap.
    await updateOrg(t.ctx, { orgId: org.orgId, liveUsageCap: 2 });
    expect(await dossierError(create(live.key, { case_type_id: 'income_verification' }))).toMatchObject({ status: 402, code: 'live_usage_cap_exceeded' });
    const sessions = await sql<{ n: number }>`select count(*)::int as n from sessions where org_id = ${org.orgId} and environment = 'live'`.execute(t.ctx.db);
    expect(sessions.rows[0]!.n).toBe(2);
  });

  it('creates under the case type version that is current, not the remembered one', async () => {
    const { org, live } = await liveWorkspace();
    const remembered = rememberedGates({ orgId: org.orgId, environment: 'live' }, 'income_verification')!;
    const put = await putCaseType(t.ctx, { orgId: org.orgId, environment: 'live', definition: {
        ...incomeVerification,
        facts: (incomeVerification.facts as Record<string, unknown>[]).map((f, i) => (i === 0 ? { ...f, anchors: ['Employee name', 'Employee', 'Staff member'] } : f)),
      },
    });
    expect(put.ok).toBe(true);
    const created = await create(live.key, { case_type_id: 'income_verification' });
    const row = await sql<{ workflow_version: string }>`select workflow_version from cases where case_id = ${created.case_id}`.execute(t.ctx.db);
    expect(row.rows[0]!.workflow_version).not.toBe(remembered.workflowVersion);
    const current = await sql<{ workflow_version: string }>`select workflow_version from case_types where org_id = ${org.orgId} and environment = 'live' and case_type_id = 'income_verification'`.execute(t.ctx.db);
    expect(row.rows[0]!.workflow_version).toBe(current.rows[0]!.workflow_version);
  });

  it('names in its inserts every column the general path writes (a migration adding one must replace the function)', async () => {
    const source = await sql<{ src: string }>`select prosrc as src from pg_proc where proname = 'create_session_at_once'`.execute(t.ctx.db);
    const text = source.rows[0]!.src.replace(/\s+/g, ' ');
    for (const [table, columns] of Object.entries(CREATION_COLUMNS)) {
      const list = new RegExp(`insert into ${table} \\(([^)]*)\\)`).exec(text);
      expect(list, table).not.toBeNull();
      expect(new Set(list![1]!.split(',').map((c) => c.trim())), table).toEqual(new Set(columns));
    }
  });

  itOnPostgres(backend, 'counts every one of sixty concurrent creations once, whichever path each took', async () => {
    const { org, live } = await liveWorkspace();
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => statusOf(create(live.key, { case_type_id: 'income_verification', external_case_id: `c-${i}` }))));
    expect(results.filter((s) => s === 201)).toHaveLength(60);
    const counts = await sql<{ sessions: number; counted: number }>`
      select (select count(*)::int from sessions where org_id = ${org.orgId} and environment = 'live') as sessions,
             (select sum(sessions_created)::int from usage_counters where org_id = ${org.orgId} and environment = 'live') as counted`.execute(t.ctx.db);
    expect(counts.rows[0]).toEqual({ sessions: 61, counted: 61 });
    // The same external ids again, concurrently: each is taken, none is written twice.
    const again = await Promise.all(
      Array.from({ length: 20 }, (_, i) => dossierError(create(live.key, { case_type_id: 'income_verification', external_case_id: `c-${i}` })).then((e) => e.code)),
    );
    expect(again).toEqual(Array.from({ length: 20 }, () => 'external_case_id_conflict'));
  });
});
