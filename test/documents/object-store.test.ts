import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { executeAdminCommand } from '../../src/cli/admin-commands.ts';
import { moveAllDocuments } from '../../src/domain/documents/move-document.ts';
import { ORPHAN_GRACE_MS, sweepOrphanObjects } from '../../src/domain/documents/orphan-objects.ts';
import { ManualClock } from '../../src/ports/clock.ts';
import { findBlobRow } from '../../src/storage/document-blobs.ts';
import { ApplicantAgent, multipartBody } from '../support/applicant.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { backends, createTestApp, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { startTestS3, type TestS3 } from '../support/object-store.ts';
import { cookieHeader, csrfOf, newOperator, signInOperator } from '../support/web.ts';
import { drainCaseJobs, readCase } from '../engine/engine-fixtures.ts';
import { textPdf } from '../extraction/helpers.ts';

const NAME = 'Ottoline Quarrendon';

function payStub(): Promise<Uint8Array> {
  return textPdf([
    { text: 'ACME MANUFACTURING LTD', y: 780 },
    { text: `Employee name: ${NAME}`, y: 740 },
    { text: 'Pay date: 2026-06-01', y: 720 },
    { text: 'Gross pay: $4,321.09', y: 700 },
  ]);
}

/** The S3 store's own behaviour: encryption at rest, faults, missing objects, the orphan sweep, migration. */
describe.each(backends().slice(-1))('documents in an object store [%s]', (backend) => {
  let s3: TestS3;
  let t: TestApp;
  let ws: TestWorkspace;
  let cookie: string;
  let pdf: Uint8Array;
  const clock = new ManualClock('2026-06-15T12:00:00.000Z');

  beforeAll(async () => {
    s3 = await startTestS3();
    t = await createTestApp(backend, { clock, env: s3.env() });
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
    const op = await newOperator(t, ws.orgId, 'reviewer');
    cookie = (await signInOperator(t, op.email, op.password)).cookie;
    pdf = await payStub();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await s3?.stop();
  });
  beforeEach(async () => {
    await s3.restart();
  });

  async function uploadStub() {
    const s = await newSession(t, ws, 'income_verification');
    const agent = new ApplicantAgent(t);
    await agent.open(s.signed_url);
    const page = `/app/s/${s.session_id}/upload/documents`;
    const csrf = csrfOf((await agent.get(page)).body);
    const body = multipartBody({ _csrf: csrf, kind: 'pay_stub' }, { name: 'file', filename: 'stub.pdf', type: 'application/pdf', bytes: pdf });
    const res = await t.app.inject({ method: 'POST', url: `${page}/files`, headers: { 'content-type': body.contentType, cookie: cookieHeader(agent.cookies), accept: 'application/json' }, payload: body.payload });
    return { res, caseId: s.case_id as string };
  }

  const keys = async () => {
    const objects = t.ctx.blobs.objects!;
    return (await objects.bucket.list(objects.root)).objects.map((o) => o.key);
  };
  const rawFiles = () =>
    readdirSync(s3.directory, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => readFileSync(join(d.parentPath, d.name)));

  it('keeps only ciphertext in the bucket: the PDF, its text and its page images are unreadable without the database and the secret', async () => {
    const { res, caseId } = await uploadStub();
    expect(res.statusCode).toBe(201);
    const docId = res.json().doc_id as string;
    await drainCaseJobs(t);
    const c = await readCase(t, ws, caseId);
    expect(c.workspace.documents[0]).toMatchObject({ doc_id: docId, status: 'processed' });
    expect(c.workspace.facts.find((f: { fact_id: string }) => f.fact_id === 'employee_name')?.value).toBe(NAME);

    const row = await findBlobRow(t.ctx.db, docId);
    expect(row).toMatchObject({ bytes: null, object_key: expect.stringContaining(`/docs/${docId}/`), sealed_key: expect.stringMatching(/^v2\./) });
    // The page image the case page shows is an object too.
    const image = await t.app.inject({ method: 'GET', url: `/dashboard/cases/${caseId}/documents/${docId}/pages/1`, headers: { cookie } });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toMatch(/^image\/(png|jpeg)$/);
    expect((await keys()).filter((k) => k.includes(docId)).length).toBeGreaterThanOrEqual(2);

    const raw = rawFiles();
    expect(raw.length).toBeGreaterThan(0);
    const all = Buffer.concat(raw);
    expect(all.includes('%PDF')).toBe(false);
    expect(all.includes(NAME)).toBe(false);
    expect(all.includes(Buffer.from(image.rawPayload.subarray(0, 32)))).toBe(false);
    for (const at of [0, 200, Math.floor(pdf.byteLength / 2), pdf.byteLength - 48]) expect(all.includes(Buffer.from(pdf.subarray(at, at + 48))), `pdf bytes at ${at}`).toBe(false);

    // The download streams the original back, whole and unchanged.
    const file = await t.app.inject({ method: 'GET', url: `/dashboard/cases/${caseId}/documents/${docId}/file`, headers: { cookie } });
    expect(file.statusCode).toBe(200);
    expect(Buffer.compare(file.rawPayload, Buffer.from(pdf))).toBe(0);
  });

  it('store down at upload: the applicant is told to try again, and nothing is half stored', async () => {
    const docsBefore = await t.ctx.db.selectFrom('documents').select('doc_id').execute();
    const keysBefore = await keys();
    await s3.stop();
    const { res, caseId } = await uploadStub();
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ ok: false, problem: 'failed', message: 'The selected file could not be uploaded – try again' });
    await s3.restart();
    expect(await t.ctx.db.selectFrom('documents').select('doc_id').execute()).toEqual(docsBefore);
    expect(await keys()).toEqual(keysBefore);
    expect((await readCase(t, ws, caseId)).workspace.documents).toEqual([]);
  });

  it('store down at extraction: the job is retried, and the document is processed once the store is back', async () => {
    const { res, caseId } = await uploadStub();
    const docId = res.json().doc_id as string;
    await s3.stop();
    await drainCaseJobs(t);
    const job = await t.ctx.db.selectFrom('case_jobs').selectAll().where('subject_id', '=', docId).executeTakeFirstOrThrow();
    expect(job).toMatchObject({ status: 'queued', attempts: 1 });
    expect(job.last_error).toBeTruthy();
    expect((await readCase(t, ws, caseId)).workspace.documents[0].status).toBe('processing');
    await s3.restart();
    clock.advance(60_000);
    await drainCaseJobs(t);
    expect((await readCase(t, ws, caseId)).workspace.documents[0]).toMatchObject({ doc_id: docId, status: 'processed' });
  });

  it('a row whose object is missing: the document fails with document_unavailable, and its download is a 404, never a 500', async () => {
    const { res, caseId } = await uploadStub();
    const docId = res.json().doc_id as string;
    const objects = t.ctx.blobs.objects!;
    await objects.deleteDocuments([docId]);
    await drainCaseJobs(t);
    expect((await readCase(t, ws, caseId)).workspace.documents[0]).toMatchObject({ doc_id: docId, status: 'failed', failure_reason: 'document_unavailable' });
    const file = await t.app.inject({ method: 'GET', url: `/dashboard/cases/${caseId}/documents/${docId}/file`, headers: { cookie } });
    expect(file.statusCode).toBe(404);
    const page = await t.app.inject({ method: 'GET', url: `/dashboard/cases/${caseId}`, headers: { cookie } });
    expect(page.statusCode).toBe(200);
  });

  it('the orphan sweep removes objects no row names once the grace period has passed, and nothing else', async () => {
    const { res } = await uploadStub();
    const kept = res.json().doc_id as string;
    // An upload whose transaction never committed: the object exists, its row does not.
    const orphan = await t.ctx.blobs.stage('doc_neverCommitted000000000', pdf);
    expect(orphan.place).toBe('object');
    const sweep = () => sweepOrphanObjects(t.ctx);
    // The bucket stamps objects with the real time; the sweep compares them with the app's clock.
    const was = clock.now();
    clock.set(new Date(Date.now() + ORPHAN_GRACE_MS - 60_000));
    expect((await sweep()).deleted).toBe(0); // too young
    expect(await keys()).toEqual(expect.arrayContaining([expect.stringContaining('doc_neverCommitted')]));
    clock.advance(2 * 60_000);
    try {
      expect((await sweep()).deleted).toBe(1);
      const after = await keys();
      expect(after.some((k) => k.includes('doc_neverCommitted'))).toBe(false);
      expect(after.some((k) => k.includes(kept))).toBe(true);
    } finally {
      clock.set(was);
    }
  });

  it('documents migrate: the database to the bucket and back while readable throughout, resumable and idempotent', async () => {
    // Documents written before the bucket was configured: their bytes are rows.
    const dbApp = await createTestApp(backend, { clock, env: {} });
    try {
      const w = await dbApp.workspace();
      await withExampleCaseTypes(dbApp, w.orgId);
      const s = await newSession(dbApp, w, 'income_verification');
      const agent = new ApplicantAgent(dbApp);
      await agent.open(s.signed_url);
      const page = `/app/s/${s.session_id}/upload/documents`;
      const csrf = csrfOf((await agent.get(page)).body);
      const body = multipartBody({ _csrf: csrf, kind: 'pay_stub' }, { name: 'file', filename: 'stub.pdf', type: 'application/pdf', bytes: pdf });
      const up = await dbApp.app.inject({ method: 'POST', url: `${page}/files`, headers: { 'content-type': body.contentType, cookie: cookieHeader(agent.cookies), accept: 'application/json' }, payload: body.payload });
      const docId = up.json().doc_id as string;
      expect((await findBlobRow(dbApp.ctx.db, docId))?.bytes).not.toBeNull();

      // The same database, now with the bucket: the migration moves it, a second run finds nothing to do.
      const store = (await import('../../src/storage/document-store.ts')).createDocumentStore({
        config: { kind: 's3', bucket: s3.bucket, prefix: 'migrated', endpoint: s3.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, writes: 'object' },
        cipher: (await import('../../src/domain/crypto/document-cipher.ts')).documentCipher(dbApp.ctx.secret),
        logger: dbApp.ctx.logger,
      });
      try {
        const deps = { db: dbApp.ctx.db, blobs: store };
        const first = await moveAllDocuments(deps, { to: 'object' });
        expect(first).toMatchObject({ moved: 1, remaining: 0 });
        expect(await findBlobRow(dbApp.ctx.db, docId)).toMatchObject({ bytes: null, object_key: expect.stringContaining(`migrated/docs/${docId}/`) });
        const read = await store.get(dbApp.ctx.db, docId);
        expect(read.ok && Buffer.compare(Buffer.from(read.bytes), Buffer.from(pdf))).toBe(0);
        expect(await moveAllDocuments(deps, { to: 'object' })).toMatchObject({ moved: 0, remaining: 0 });

        const back = await moveAllDocuments(deps, { to: 'database' });
        expect(back).toMatchObject({ moved: 1, remaining: 0 });
        const row = await findBlobRow(dbApp.ctx.db, docId);
        expect(row?.object_key).toBeNull();
        expect(Buffer.compare(row!.bytes!, Buffer.from(pdf))).toBe(0);
        expect((await store.objects!.bucket.list('migrated/')).objects).toEqual([]);
      } finally {
        store.close();
      }
      // The command: without a bucket it says what it needs; with one it prints its summary line.
      const refused = await executeAdminCommand(dbApp.runtime, ['documents', 'migrate', '--to', 's3']);
      expect(refused.result).toMatchObject({ error: { code: 'precondition_required' } });
      const usage = await executeAdminCommand(t.runtime, ['documents', 'migrate', '--to', 'tape']);
      expect(usage.exitCode).toBe(2);
      const ran = await executeAdminCommand(t.runtime, ['documents', 'migrate', '--to', 's3']);
      expect(ran.exitCode).toBe(0);
      expect(ran.result).toMatchObject({ to: 's3', moved: 0, remaining: 0, summary: expect.stringMatching(/^moved 0 documents to s3 in [\d.]+ s \(\d+ already there, 0 erased meanwhile, 0 unavailable\); 0 not in s3$/) });
    } finally {
      await dbApp.close();
    }
  });
});
