import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.ts';
import { caseJobsTask, CASE_ENGINE_HANDLERS, CASE_ENGINE_OPTIONS } from '../../src/jobs/case-jobs.ts';
import { ExtractionAborted } from '../../src/jobs/extraction-pool.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { uniqueKey, withExampleCaseTypes } from '../support/fixtures.ts';
import { readCase } from '../engine/engine-fixtures.ts';
import { startDocumentServer } from './document-server.ts';

/**
 * What happens when extraction itself is killed (deadline, memory cap) or its worker dies: the
 * attempt counts, the job is retried a bounded number of times, and the document then ends
 * `failed` with `extraction_aborted` so the case moves on to review.
 */
describeEachBackend('a document whose extraction never finishes', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let docs: Awaited<ReturnType<typeof startDocumentServer>>;
  const clock = new ManualClock('2026-06-15T12:00:00.000Z');
  let calls = 0;

  beforeAll(async () => {
    docs = await startDocumentServer({ '/paystub.txt': { body: 'Pay date: 06/05/2026\nGross pay: $2,450.00', type: 'text/plain' } });
    t = await createTestApp(backend, { clock, env: { DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' } });
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
    const pool = t.ctx.extraction;
    // Every attempt is killed, as the pool reports a child it had to kill.
    t.ctx.extraction = {
      pids: [],
      close: () => pool.close(),
      renderPages: async () => [],
      extractPages: async () => {
        calls++;
        throw new ExtractionAborted('memory', 'extraction used 2000 MB; the cap is 1536 MB');
      },
    };
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await docs.close();
  });

  const task = () => caseJobsTask(CASE_ENGINE_HANDLERS, CASE_ENGINE_OPTIONS);
  const process = async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/process',
      headers: { authorization: `Bearer ${ws.key}`, 'idempotency-key': uniqueKey() },
      payload: { document_url: docs.url('/paystub.txt'), case_type_id: 'income_verification', document_kind: 'pay_stub' },
    });
    expect(res.statusCode, res.body).toBe(202);
    return res.json() as { case_id: string; document_id: string };
  };
  const documentJob = (docId: string) =>
    t.ctx.db.selectFrom('case_jobs').selectAll().where('subject_id', '=', docId).where('kind', '=', 'document_processing').executeTakeFirstOrThrow();

  it('retries a killed extraction, then gives the document up as extraction_aborted and sends the case to review', async () => {
    calls = 0;
    const { case_id: caseId, document_id: docId } = await process();
    const worker = task();
    // Each retry waits out its backoff; the clock is moved past it.
    for (let round = 0; round < 10 && (await documentJob(docId)).status !== 'failed'; round++) {
      await worker.run(t.ctx);
      clock.advance(60_000);
    }
    expect(calls).toBe(3);
    const job = await documentJob(docId);
    expect(job).toMatchObject({ status: 'failed', attempts: 3, last_error: expect.stringMatching(/the cap is 1536 MB/) });
    for (let i = 0; i < 3 && (await worker.run(t.ctx)) > 0; i++);
    const c = await readCase(t, ws, caseId);
    expect(c.workspace.documents[0]).toMatchObject({ doc_id: docId, status: 'failed', failure_reason: 'extraction_aborted' });
    expect(c.runtime_status).toBe('ready_for_review');
    expect(c.queue_row).toMatchObject({ why_here_code: 'document_failed' });
  });

  it('counts an attempt whose worker died, and never runs a job again once its attempts are spent', async () => {
    calls = 0;
    const dead = async (docId: string, attempts: number) => {
      // As a worker that crashed mid-extraction leaves it: running, under a lease that has ended.
      await t.ctx.db.updateTable('case_jobs')
        .set({ status: 'running', attempts, locked_by: 'crashed-worker', locked_until: new Date(clock.now().getTime() - 1000) })
        .where('subject_id', '=', docId).execute();
      await t.ctx.db.updateTable('documents').set({ status: 'processing' }).where('doc_id', '=', docId).execute();
    };
    const once = await process();
    const spent = await process();
    await dead(once.document_id, 2);
    await dead(spent.document_id, 3);
    const worker = task();
    await worker.run(t.ctx);
    // The job with one attempt left ran (and was killed again); the spent one did not run at all.
    expect(calls).toBe(1);
    expect(await documentJob(once.document_id)).toMatchObject({ status: 'failed', attempts: 3 });
    expect(await documentJob(spent.document_id)).toMatchObject({ status: 'failed', attempts: 4, last_error: expect.stringMatching(/abandoned after 3 attempts/) });
    for (let i = 0; i < 3 && (await worker.run(t.ctx)) > 0; i++);
    for (const { case_id: caseId, document_id: docId } of [once, spent]) {
      const c = await readCase(t, ws, caseId);
      expect(c.workspace.documents[0]).toMatchObject({ doc_id: docId, status: 'failed', failure_reason: 'extraction_aborted' });
      expect(c.runtime_status).toBe('ready_for_review');
    }
  });
});
