import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { putCaseType } from '../../src/domain/case-types/case-types.ts';
import { documentRetentionSweep, webhookRetentionSweep } from '../../src/jobs/retention-sweeps.ts';
import { ManualClock } from '../../src/ports/clock.ts';
import type { DeliveryStatus } from '../../src/storage/tables/webhooks.ts';
import { drainCaseJobs } from '../engine/engine-fixtures.ts';
import { startDocumentServer } from '../documents/document-server.ts';
import { incomeVerification, uniqueKey } from '../support/fixtures.ts';
import { createTestApp, describeEachBackend, postgresUrlOf, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { describeEachStore } from '../support/object-store.ts';
import { addEndpoint, insertCase } from '../webhooks/fixtures.ts';
import { PAY_STUB } from './fixtures.ts';

const DAY = 86_400_000;

describeEachBackend('webhook retention', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let endpointId: string;
  let caseId: string;
  const clock = new ManualClock('2026-06-15T12:00:00.000Z');

  beforeAll(async () => {
    t = await createTestApp(backend, { clock, env: { WEBHOOK_RETENTION_DAYS: '30' } });
    ws = await t.workspace();
    endpointId = (await addEndpoint(t.ctx, ws.orgId, 'https://receiver.example/hooks')).endpoint_id;
    caseId = await insertCase(t.ctx, ws.orgId);
  });
  afterAll(() => t.close());

  /** A delivery last changed `ageDays` before now, with `attempts` attempt rows. */
  async function delivery(label: string, status: DeliveryStatus, ageDays: number, attempts: number): Promise<string> {
    const at = new Date(clock.now().getTime() - ageDays * DAY);
    const id = `dlv_${label}_${Math.random().toString(36).slice(2, 10)}`;
    const waiting = status === 'pending' || status === 'retry_scheduled';
    await t.ctx.db
      .insertInto('webhook_deliveries')
      .values({
        delivery_id: id, org_id: ws.orgId, environment: 'test', endpoint_id: endpointId, event_id: `evt_${id}`, event_type: 'v1.case.completed',
        case_id: caseId, payload: '{}', status, attempt_count: attempts, total_attempts: attempts, next_attempt_at: waiting ? at : null,
        locked_by: null, locked_until: null, last_attempt_at: attempts > 0 ? at : null, last_status_code: null, last_error: null,
        delivered_at: status === 'delivered' ? at : null, failed_at: status === 'failed' ? at : null, acknowledged_at: null,
        acknowledgement_id: null, created_at: new Date(at.getTime() - DAY), updated_at: at,
      })
      .execute();
    for (let n = 1; n <= attempts; n++) {
      await t.ctx.db
        .insertInto('webhook_delivery_attempts')
        .values({ delivery_id: id, attempt_number: n, org_id: ws.orgId, environment: 'test', attempted_at: at, status_code: 500, duration_ms: 3, error: 'HTTP 500', response_excerpt: null })
        .execute();
    }
    return id;
  }

  const remaining = async () =>
    new Set((await t.ctx.db.selectFrom('webhook_deliveries').select('delivery_id').where('endpoint_id', '=', endpointId).execute()).map((r) => r.delivery_id));
  const attemptsOf = async (id: string) => (await t.ctx.db.selectFrom('webhook_delivery_attempts').select('attempt_number').where('delivery_id', '=', id).execute()).length;

  it('prunes finished deliveries and their attempts past the retention, in batches, and touches nothing younger', async () => {
    const old = [
      await delivery('delivered_old', 'delivered', 31, 1),
      await delivery('failed_old', 'failed', 30.01, 5),
      await delivery('delivered_old2', 'delivered', 45, 2),
      await delivery('failed_old2', 'failed', 90, 5),
      await delivery('delivered_old3', 'delivered', 60, 1),
    ];
    const young = [
      await delivery('delivered_young', 'delivered', 29.99, 1),
      // A failed delivery nobody retried yet: kept until it too is 30 days old.
      await delivery('failed_young', 'failed', 29, 5),
      // Still waiting for attempts, whatever their age.
      await delivery('pending_ancient', 'pending', 400, 0),
      await delivery('retrying_ancient', 'retry_scheduled', 400, 3),
    ];
    const sweep = webhookRetentionSweep({ batch: 2 });
    const batches: number[] = [];
    for (let i = 0; i < 10; i++) {
      const n = await sweep.run(t.ctx);
      batches.push(n);
      if (n === 0) break;
    }
    // Two full batches (the worker goes again at once), then a short one that says "done".
    expect(batches).toEqual([2, 2, 0]);
    const left = await remaining();
    for (const id of old) {
      expect(left.has(id), id).toBe(false);
      expect(await attemptsOf(id)).toBe(0);
    }
    for (const id of young) expect(left.has(id), id).toBe(true);
    expect(await attemptsOf(young[1]!)).toBe(5);
    expect(await attemptsOf(young[3]!)).toBe(3);

    // A day later the young delivered and failed ones age out too; the waiting ones never do.
    clock.advance(1.5 * DAY);
    while ((await sweep.run(t.ctx)) > 0);
    const later = await remaining();
    expect([...young].map((id) => later.has(id))).toEqual([false, false, true, true]);
    clock.advance(-1.5 * DAY);
  });

  // Row locks only race on PostgreSQL: PGlite has one connection.
  if (backend === 'postgres') it('skips a delivery another transaction holds instead of waiting for it', async () => {
    const held = await delivery('held', 'failed', 50, 1);
    const free = await delivery('free', 'delivered', 50, 1);
    const target = t.runtime.database;
    expect(target.kind).toBe('postgres');
    // A second connection on the test's schema holds the row, as a manual retry in progress would.
    const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(t.ctx.db)).rows[0]!.s;
    const other = new pg.Client({ connectionString: postgresUrlOf(t.ctx)!, options: `-c search_path=${schema}` });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select 1 from webhook_deliveries where delivery_id = $1 for update', [held]);
      const started = Date.now();
      await webhookRetentionSweep().run(t.ctx);
      expect(Date.now() - started).toBeLessThan(5_000);
      const left = await remaining();
      expect(left.has(held)).toBe(true);
      expect(left.has(free)).toBe(false);
      await other.query('rollback');
      await webhookRetentionSweep().run(t.ctx);
      expect((await remaining()).has(held)).toBe(false);
    } finally {
      await other.end();
    }
  });
});

describeEachStore('document retention', (backend, store, storeEnv) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let docs: Awaited<ReturnType<typeof startDocumentServer>>;
  const clock = new ManualClock('2026-06-15T12:00:00.000Z');

  beforeAll(async () => {
    docs = await startDocumentServer({ '/paystub.txt': { body: PAY_STUB, type: 'text/plain' } });
    t = await createTestApp(backend, { clock, env: { ...(await storeEnv()), DOSSIER_ALLOW_PRIVATE_NETWORK: 'true', DOCUMENT_RETENTION_DAYS: '30' } });
    ws = await t.workspace();
    const variants: Record<string, Record<string, unknown>> = {
      week_kept: { retention: { documents_days: 7 } },
      default_kept: {},
      forever_kept: { retention: { documents_days: null } },
    };
    for (const [id, extra] of Object.entries(variants)) {
      const put = await putCaseType(t.ctx, { orgId: ws.orgId, environment: 'test', definition: { ...incomeVerification, case_type_id: id, ...extra } });
      if (!put.ok) throw new Error(JSON.stringify(put.problems));
    }
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await docs.close();
  });

  const api = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${ws.key}`, 'idempotency-key': uniqueKey() }, ...(payload ? { payload } : {}) });

  /** A case of the type with one processed document; completed by an operator unless `complete` is false. */
  async function caseWithDocument(caseTypeId: string, complete = true) {
    const res = await api('POST', '/api/v1/process', { document_url: docs.url('/paystub.txt'), case_type_id: caseTypeId, document_kind: 'pay_stub' });
    expect(res.statusCode, res.body).toBe(202);
    await drainCaseJobs(t);
    const { case_id: caseId, document_id: docId } = res.json() as { case_id: string; document_id: string };
    if (complete) expect((await api('POST', `/api/v1/cases/${caseId}/decision`, { decision: 'approve' })).statusCode).toBe(200);
    return { caseId, docId };
  }
  const documentOf = (docId: string) => t.ctx.db.selectFrom('documents').selectAll().where('doc_id', '=', docId).executeTakeFirstOrThrow();
  const pagesOf = async (docId: string) => (await t.ctx.db.selectFrom('document_pages').select('page_index').where('doc_id', '=', docId).execute()).length;
  /** The document's objects in the bucket (the S3 store), or its blob rows (the database store). */
  const storedCopies = async (docId: string) => {
    const objects = t.ctx.blobs.objects;
    if (store === 's3' && objects) return (await objects.bucket.list(objects.folderOf(docId))).objects.length;
    return (await t.ctx.db.selectFrom('document_blobs').select('doc_id').where('doc_id', '=', docId).execute()).length;
  };
  const sweepAll = async () => {
    const sweep = documentRetentionSweep({ batch: 1 });
    let runs = 0;
    while ((await sweep.run(t.ctx)) > 0) runs++;
    return runs;
  };

  it('erases documents N days after completion, with events saying retention was the cause, and nothing younger', async () => {
    const start = clock.now().getTime();
    const week = await caseWithDocument('week_kept');
    const deflt = await caseWithDocument('default_kept');
    const forever = await caseWithDocument('forever_kept');
    const open = await caseWithDocument('week_kept', false);
    const completedAt = (await t.ctx.db.selectFrom('cases').select('completed_at').where('case_id', '=', week.caseId).executeTakeFirstOrThrow()).completed_at!;
    expect(completedAt.getTime()).toBe(start);

    // One millisecond short of seven days: nothing is due.
    clock.set(new Date(start + 7 * DAY - 1));
    expect(await sweepAll()).toBe(0);
    for (const c of [week, deflt, forever, open]) expect((await documentOf(c.docId)).status).toBe('processed');

    clock.set(new Date(start + 7 * DAY + 1));
    // One case per batch here: one full batch, then the short one that ends the sweep.
    expect(await sweepAll()).toBe(1);
    const erased = await documentOf(week.docId);
    expect(erased).toMatchObject({ status: 'erased', filename: null, source_url: null, sha256: null });
    expect(await pagesOf(week.docId)).toBe(0);
    // Retention deletes the stored file too: its object, on the S3 store.
    expect(await storedCopies(week.docId)).toBe(0);
    for (const c of [deflt, forever, open]) expect(await storedCopies(c.docId), c.caseId).toBe(1);
    const facts = await api('GET', `/api/v1/cases/${week.caseId}`);
    const employee = facts.json().workspace.facts.find((f: { fact_id: string }) => f.fact_id === 'employee_name');
    expect(employee).toMatchObject({ value: null, status: 'pending', evidence: [] });
    const events = await t.ctx.db.selectFrom('case_events').select(['event_type', 'data']).where('case_id', '=', week.caseId).orderBy('cursor').execute();
    expect(events.filter((e) => e.event_type === 'document.erased').map((e) => e.data)).toEqual([expect.objectContaining({ doc_id: week.docId, reason: 'retention' })]);
    expect(events.filter((e) => e.event_type === 'case.erased').map((e) => e.data)).toEqual([expect.objectContaining({ doc_ids: [week.docId], reason: 'retention' })]);
    // The others are younger than their retention, or not complete at all.
    for (const c of [deflt, forever, open]) expect((await documentOf(c.docId)).status, c.caseId).toBe('processed');

    // DOCUMENT_RETENTION_DAYS (30) is the default for a case type that names none.
    clock.set(new Date(start + 30 * DAY - 1));
    await sweepAll();
    expect((await documentOf(deflt.docId)).status).toBe('processed');
    clock.set(new Date(start + 30 * DAY + 1));
    await sweepAll();
    expect((await documentOf(deflt.docId)).status).toBe('erased');

    // Years later: `documents_days: null` keeps, and a case that never completed keeps its documents.
    clock.set(new Date(start + 3650 * DAY));
    await sweepAll();
    expect((await documentOf(forever.docId)).status).toBe('processed');
    expect((await documentOf(open.docId)).status).toBe('processed');
    // Erasing again is not needed: the sweep does not find the erased case a second time.
    const erasedEvents = await t.ctx.db.selectFrom('case_events').select('event_id').where('case_id', '=', week.caseId).where('event_type', '=', 'case.erased').execute();
    expect(erasedEvents).toHaveLength(1);
    clock.set(new Date(start));
  });

  it('keeps everything when neither the case type nor DOCUMENT_RETENTION_DAYS sets a retention', async () => {
    const start = clock.now().getTime();
    const c = await caseWithDocument('default_kept');
    clock.set(new Date(start + 3650 * DAY));
    const unset = { ...t.ctx, config: { ...t.ctx.config, documentRetentionDays: undefined } };
    const sweep = documentRetentionSweep();
    expect(await sweep.run(unset)).toBe(0);
    expect((await documentOf(c.docId)).status).toBe('processed');
    clock.set(new Date(start));
  });

  it('refuses a retention that is not a positive whole number of days', async () => {
    for (const retention of [{ documents_days: 0 }, { documents_days: 1.5 }, { documents_days: '7' }, { days: 7 }]) {
      const put = await putCaseType(t.ctx, { orgId: ws.orgId, environment: 'test', definition: { ...incomeVerification, case_type_id: 'bad_retention', retention } });
      expect(put.ok, JSON.stringify(retention)).toBe(false);
    }
  });
});
