import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueCaseJob } from '../../src/storage/case-jobs.ts';
import { findStoredCaseRecord, storeCaseRecord } from '../../src/storage/case-records.ts';
import { inTransaction } from '../../src/storage/unit-of-work.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';

/**
 * Case reads serve stored, rendered records (migration 0015). These tests run with
 * VALIDATE_RESPONSES off, the production setting, so that the stored text really is what goes out;
 * every other test runs with it on, which re-renders each read and fails on any difference.
 */
describeEachBackend('stored case records', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let caseId: string;
  let sessionId: string;

  beforeAll(async () => {
    t = await createTestApp(backend, { env: { VALIDATE_RESPONSES: 'false' } });
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
    const created = await newSession(t, ws, 'income_verification', { external_case_id: 'cache-1' });
    caseId = created.case_id;
    sessionId = created.session_id;
  });
  afterAll(() => t.close());

  const read = (headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: `/api/v1/cases/${caseId}`, headers: { authorization: `Bearer ${ws.key}`, ...headers } });
  const revision = async () => (await findStoredCaseRecord(t.ctx.db, { orgId: ws.orgId, environment: 'test', caseId }))!.revision;

  it('answers with an ETag and stores the record it rendered under the case revision', async () => {
    const first = await read();
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    expect(first.headers.etag).toMatch(/^"\d+-[\w-]+"$/);
    const stored = await findStoredCaseRecord(t.ctx.db, { orgId: ws.orgId, environment: 'test', caseId });
    expect(stored?.stored?.revision).toBe(stored?.revision);
    expect(stored?.stored?.body).toBe(first.body);
    const second = await read();
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toBe(first.headers.etag);
  });

  it('answers 304 with no body to If-None-Match naming the current ETag, weak or strong, or *', async () => {
    const etag = String((await read()).headers.etag);
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await read({ 'if-none-match': header });
      expect(again.statusCode, header).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
    }
    expect((await read({ 'if-none-match': '"1-stale"' })).statusCode).toBe(200);
  });

  it('another process changing the case row is seen at once, with a new ETag', async () => {
    const before = await read();
    await sql`update cases set external_case_id = 'cache-1-renamed' where case_id = ${caseId}`.execute(t.ctx.db);
    const after = await read({ 'if-none-match': String(before.headers.etag) });
    expect(after.statusCode).toBe(200);
    expect(after.json().external_case_id).toBe('cache-1-renamed');
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it('a change to any table the record is built from moves the revision: facts, documents, jobs, sessions', async () => {
    for (const table of ['facts', 'documents', 'case_jobs', 'sessions']) {
      const job = `job_cache_${table}`;
      // jobs have no rows yet at intake: give the table one to update.
      if (table === 'case_jobs') {
        await inTransaction(t.ctx.db, (tx) =>
          enqueueCaseJob(tx, { jobId: job, caseId, orgId: ws.orgId, environment: 'test', kind: 'cache_probe', subjectId: null, runAfter: new Date() }),
        );
      }
      const start = await revision();
      await sql`update ${sql.table(table)} set case_id = case_id where case_id = ${caseId}`.execute(t.ctx.db);
      const rows = await sql<{ n: string }>`select count(*) as n from ${sql.table(table)} where case_id = ${caseId}`.execute(t.ctx.db);
      if (Number(rows.rows[0]!.n) > 0) expect(await revision(), `update of ${table}`).toBeGreaterThan(start);
      await sql`delete from case_jobs where job_id = ${job}`.execute(t.ctx.db);
    }
  });

  it('every table the record is built from carries the insert, update and delete triggers', async () => {
    const triggers = await sql<{ table: string; n: string }>`
      select c.relname as table, count(*) as n from pg_trigger g join pg_class c on c.oid = g.tgrelid
      where c.relnamespace = current_schema()::regnamespace and not g.tgisinternal and g.tgname like '%_touch_case_%' group by c.relname order by c.relname`.execute(t.ctx.db);
    expect(triggers.rows.map((r) => [r.table, Number(r.n)])).toEqual([
      ['case_jobs', 3],
      ['connector_calls', 3],
      ['documents', 3],
      ['facts', 3],
      ['sessions', 3],
    ]);
  });

  it('inserting and deleting child rows is seen by the next read', async () => {
    await read();
    await inTransaction(t.ctx.db, (tx) =>
      enqueueCaseJob(tx, { jobId: 'job_cache_visible', caseId, orgId: ws.orgId, environment: 'test', kind: 'cache_probe', subjectId: null, runAfter: new Date() }),
    );
    expect((await read()).json().workspace.jobs.map((j: { job_id: string }) => j.job_id)).toContain('job_cache_visible');
    await sql`delete from case_jobs where job_id = 'job_cache_visible'`.execute(t.ctx.db);
    expect((await read()).json().workspace.jobs.map((j: { job_id: string }) => j.job_id)).not.toContain('job_cache_visible');
    await sql`update sessions set status = 'expired' where session_id = ${sessionId}`.execute(t.ctx.db);
    expect((await read()).json().workspace.intake_session.status).toBe('expired');
  });

  it('one transaction of many child writes moves the revision, and a reader that rendered an older state cannot store over a newer one', async () => {
    await read();
    const start = await revision();
    await inTransaction(t.ctx.db, async (tx) => {
      await sql`update cases set locale = 'fr' where case_id = ${caseId}`.execute(tx);
      await sql`update facts set case_id = case_id where case_id = ${caseId}`.execute(tx);
      await sql`update sessions set case_id = case_id where case_id = ${caseId}`.execute(tx);
    });
    const moved = await revision();
    expect(moved).toBeGreaterThan(start);
    const fresh = await read();
    await storeCaseRecord(t.ctx.db, { caseId, revision: moved - 1, format: 'old', body: '{"stale":true}' });
    const again = await read();
    expect(again.body).toBe(fresh.body);
  });

  it('concurrent reads share one statement, and each gets its own answer', async () => {
    const second = (await newSession(t, ws, 'income_verification')).case_id;
    const other = await t.workspace();
    await Promise.all([read(), read()]);
    const before = t.runtime.database.poolStats().statements;
    const results = await Promise.all([
      findStoredCaseRecord(t.ctx.db, { orgId: ws.orgId, environment: 'test', caseId }),
      findStoredCaseRecord(t.ctx.db, { orgId: ws.orgId, environment: 'test', caseId: second }),
      findStoredCaseRecord(t.ctx.db, { orgId: other.orgId, environment: 'test', caseId }),
      findStoredCaseRecord(t.ctx.db, { orgId: ws.orgId, environment: 'live', caseId }),
      findStoredCaseRecord(t.ctx.db, { orgId: ws.orgId, environment: 'test', caseId: 'case_missing' }),
    ]);
    expect(t.runtime.database.poolStats().statements - before).toBe(1);
    expect(results[0]?.revision).toBe(await revision());
    expect(results[1]?.revision).toBeGreaterThan(0);
    expect(results.slice(2)).toEqual([undefined, undefined, undefined]);
  });

  it('asks the revision mirror about held text while the rate limit is counted, not after (issue 29)', async () => {
    expect((await read()).statusCode).toBe(200); // now held by this process
    // PostgreSQL without Redis has no mirror (reads check the database); the embedded database's is in process.
    if (backend === 'postgres') return expect(t.ctx.caseRevisions).toBeNull();
    const order: string[] = [];
    const revisions = t.ctx.caseRevisions!;
    const { current } = revisions;
    const { hit } = t.ctx.rateLimits;
    revisions.current = (id) => (order.push('mirror'), current.call(revisions, id));
    t.ctx.rateLimits.hit = async (key, window) => {
      order.push('rate limit asked');
      const count = await hit.call(t.ctx.rateLimits, key, window);
      order.push('rate limit answered');
      return count;
    };
    try {
      expect((await read()).statusCode).toBe(200);
    } finally {
      revisions.current = current;
      t.ctx.rateLimits.hit = hit;
    }
    expect(order).toEqual(['mirror', 'rate limit asked', 'rate limit answered']);
  });

  it('another workspace cannot read the case, stored or not', async () => {
    const other = await t.workspace();
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/cases/${caseId}`, headers: { authorization: `Bearer ${other.key}` } });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
  });
});

describe('stored case records under VALIDATE_RESPONSES', () => {
  it('still answer ETag and 304', async () => {
    const t = await createTestApp('embedded');
    try {
      const ws = await t.workspace();
      await withExampleCaseTypes(t, ws.orgId);
      const { case_id } = await newSession(t, ws, 'income_verification');
      const headers = { authorization: `Bearer ${ws.key}` };
      const first = await t.app.inject({ method: 'GET', url: `/api/v1/cases/${case_id}`, headers });
      expect(first.statusCode).toBe(200);
      const second = await t.app.inject({ method: 'GET', url: `/api/v1/cases/${case_id}`, headers: { ...headers, 'if-none-match': String(first.headers.etag) } });
      expect(second.statusCode).toBe(304);
      expect(second.body).toBe('');
    } finally {
      await t.close();
    }
  });
});
