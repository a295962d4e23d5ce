import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.ts';
import { createTestApp, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { describeEachStore, testS3 } from '../support/object-store.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { uniqueKey, withExampleCaseTypes } from '../support/fixtures.ts';
import { drainCaseJobs, eventTypes, readCase } from '../engine/engine-fixtures.ts';
import { startDocumentServer } from './document-server.ts';

/** Strings that exist only in the documents: none may survive erasure anywhere in the database. */
const UNIQUE = ['Quentin Zarathustra', 'Zarathustra', 'Xylophonic Widgets', '7,341.77', '7341.77', 'Vortigern Lane', 'Earnings Statement 88'];
const stub = (n: number) =>
  ['Earnings Statement 88', `Employee name: Quentin Zarathustra`, 'Employer: Xylophonic Widgets', `Pay date: 2026-06-0${n}`, 'Gross pay: $7,341.77', 'Home: 12 Vortigern Lane'].join('\n');

/** The tables (dump lines) in which `needle` still appears. */
function leaks(dump: string, needle: string): string[] {
  return dump.split('\n').filter((line) => line.includes(needle)).map((line) => line.slice(0, line.indexOf(':')));
}

describeEachStore('erasure', (backend, store, storeEnv) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let docs: Awaited<ReturnType<typeof startDocumentServer>>;
  const clock = new ManualClock('2026-06-15T12:00:00.000Z');

  beforeAll(async () => {
    docs = await startDocumentServer({ '/a.txt': { body: stub(1), type: 'text/plain' }, '/b.txt': { body: stub(2), type: 'text/plain' } });
    t = await createTestApp(backend, { clock, env: { ...(await storeEnv()), DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' } });
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
  });
  afterAll(async () => {
    await t.close();
    await docs.close();
  });

  const api = (method: 'POST' | 'DELETE' | 'PATCH', url: string, payload?: Record<string, unknown>) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${ws.key}` }, ...(payload ? { payload } : {}) });

  /** Every row of every table of this database, as text. */
  async function dumpDatabase(): Promise<string> {
    const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(t.ctx.db);
    expect(tables.rows.length).toBeGreaterThan(10);
    const parts: string[] = [];
    for (const { table_name } of tables.rows) {
      const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table_name)}`.execute(t.ctx.db);
      const text = JSON.stringify(rows.rows, (_k, v) => (v && typeof v === 'object' && v.type === 'Buffer' ? Buffer.from(v.data).toString('latin1') : v));
      parts.push(`${table_name}: ${text}`);
    }
    return parts.join('\n');
  }

  /** The bucket's keys under this app's prefix (none with the database store). */
  async function bucketListing(): Promise<string[]> {
    const objects = t.ctx.blobs.objects;
    if (store !== 's3' || !objects) return [];
    return (await objects.bucket.list(objects.root)).objects.map((o) => o.key);
  }

  /** Every file s3rver wrote (objects and their metadata), as text: what someone with the bucket alone could read. */
  async function rawBucket(): Promise<string> {
    if (store !== 's3') return '';
    const files = readdirSync((await testS3()).directory, { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
    return files.map((d) => readFileSync(join(d.parentPath, d.name)).toString('latin1')).join('\n');
  }

  it('destroys bytes, page text and derived values of one document, keeps ids, statuses and events, and repeats', async () => {
    const first = await t.app.inject({
      method: 'POST',
      url: '/api/v1/process',
      headers: { authorization: `Bearer ${ws.key}`, 'idempotency-key': uniqueKey() },
      payload: { document_url: docs.url('/a.txt'), case_type_id: 'income_verification', document_kind: 'pay_stub', filename: 'quentin-zarathustra.txt' },
    });
    const { case_id: caseId, document_id: docId } = first.json();
    await drainCaseJobs(t);
    // An operator correction of a document value keeps history; erasure must clear the document's side of it.
    await api('PATCH', `/api/v1/cases/${caseId}/facts/gross_pay`, { value: '7000.00', reason: 'rounded' });
    const before = await dumpDatabase();
    for (const s of UNIQUE) expect(before, s).toContain(s);
    if (store === 's3') {
      // The original is an object, and the bucket alone reads nothing of it.
      expect((await bucketListing()).filter((k) => k.includes(`/docs/${docId}/`))).toHaveLength(1);
      const raw = await rawBucket();
      for (const s of UNIQUE) expect(raw, s).not.toContain(s);
    }

    const erased = await api('DELETE', `/api/v1/cases/${caseId}/documents/${docId}`);
    expect(erased.statusCode).toBe(200);
    expect(erased.json()).toMatchObject({ doc_id: docId, case_id: caseId, status: 'erased' });
    const after = await dumpDatabase();
    for (const s of UNIQUE) expect(leaks(after, s), s).toEqual([]);
    expect((await bucketListing()).filter((k) => k.includes(docId))).toEqual([]);

    const c = await readCase(t, ws, caseId);
    expect(c.workspace.documents).toEqual([expect.objectContaining({ doc_id: docId, status: 'erased', filename: null, sha256: null })]);
    const name = c.workspace.facts.find((f: { fact_id: string }) => f.fact_id === 'employee_name');
    expect(name).toMatchObject({ value: null, evidence: [], provenance: [], reason_codes: ['erased'] });
    // The operator's own value is not document-derived and stays.
    expect(c.workspace.facts.find((f: { fact_id: string }) => f.fact_id === 'gross_pay')).toMatchObject({ value: '7000.00', source: 'operator' });
    expect(await eventTypes(t, caseId)).toEqual(expect.arrayContaining(['document.processed', 'document.erased']));

    const again = await api('DELETE', `/api/v1/cases/${caseId}/documents/${docId}`);
    expect(again.statusCode).toBe(200);
    expect(again.json().erased_at).toBe(erased.json().erased_at);
  });

  it('erases a whole case, repeatably', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/process',
      headers: { authorization: `Bearer ${ws.key}`, 'idempotency-key': uniqueKey() },
      payload: { document_url: docs.url('/b.txt'), case_type_id: 'income_verification', document_kind: 'pay_stub' },
    });
    const caseId = res.json().case_id;
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/process',
      headers: { authorization: `Bearer ${ws.key}`, 'idempotency-key': uniqueKey() },
      payload: { document_url: docs.url('/a.txt'), case_id: caseId, document_kind: 'pay_stub' },
    });
    await drainCaseJobs(t);
    expect(await dumpDatabase()).toContain('Zarathustra');
    const erased = await api('POST', `/api/v1/cases/${caseId}/erasure`);
    expect(erased.statusCode).toBe(200);
    expect(erased.json().erased_document_ids).toHaveLength(2);
    const dump = await dumpDatabase();
    for (const s of UNIQUE) expect(leaks(dump, s), s).toEqual([]);
    for (const id of erased.json().erased_document_ids as string[]) expect((await bucketListing()).filter((k) => k.includes(id)), id).toEqual([]);
    expect((await api('POST', `/api/v1/cases/${caseId}/erasure`)).statusCode).toBe(200);
    const pkg = await t.app.inject({ method: 'GET', url: `/api/v1/cases/${caseId}/package`, headers: { authorization: `Bearer ${ws.key}` } });
    expect(JSON.stringify(pkg.json())).not.toContain('Zarathustra');
  });

  it('answers missing_doc_id, missing_case_id, not_found and forbidden', async () => {
    const caseId = (await t.ctx.db.selectFrom('cases').select('case_id').where('org_id', '=', ws.orgId).executeTakeFirstOrThrow()).case_id;
    for (const url of [`/api/v1/cases/${caseId}/documents/`, `/api/v1/cases/${caseId}/documents`]) {
      const res = await api('DELETE', url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.code).toBe('missing_doc_id');
    }
    expect((await api('POST', '/api/v1/cases//erasure')).json().error.code).toBe('missing_case_id');
    expect((await api('DELETE', `/api/v1/cases/${caseId}/documents/doc_nope`)).statusCode).toBe(404);
    expect((await api('POST', '/api/v1/cases/case_nope/erasure')).statusCode).toBe(404);
    const other = await t.workspace();
    expect((await t.app.inject({ method: 'POST', url: `/api/v1/cases/${caseId}/erasure`, headers: { authorization: `Bearer ${other.key}` } })).statusCode).toBe(404);
    const reader = await t.createKey(ws.orgId, { scopes: ['cases:read', 'cases:write'] });
    expect((await t.app.inject({ method: 'POST', url: `/api/v1/cases/${caseId}/erasure`, headers: { authorization: `Bearer ${reader.key}` } })).statusCode).toBe(403);
  });
});
