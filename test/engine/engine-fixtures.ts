import { saveFormAnswers, submitIntake } from '../../src/domain/intake/submit-intake.ts';
import { toJsonb } from '../../src/storage/json.ts';
import { saveFact } from '../../src/domain/cases/case-facts.ts';
import type { CaseRow } from '../../src/storage/cases.ts';
import { inTransaction } from '../../src/storage/unit-of-work.ts';
import { caseJobsTask, CASE_ENGINE_HANDLERS, CASE_ENGINE_OPTIONS } from '../../src/jobs/case-jobs.ts';
import type { TestApp, TestWorkspace } from '../support/harness.ts';
import type { ApplicantSession } from '../support/fixtures.ts';
export { newSession } from '../support/fixtures.ts';

/** Stands in for document processing (issue 6): a processed document of a kind, and extracted facts. */
export async function addProcessedDocument(t: TestApp, caseId: string, kind: string, facts: Record<string, string | null>) {
  const c = await t.ctx.db.selectFrom('cases').selectAll().where('case_id', '=', caseId).executeTakeFirstOrThrow();
  const now = t.clock.now();
  const docId = t.ctx.ids.next('doc');
  await t.ctx.db
    .insertInto('documents')
    .values({
      doc_id: docId, case_id: caseId, org_id: c.org_id, environment: c.environment, document_kind: kind, filename: `${kind}.pdf`,
      source: 'upload', source_url: null, status: 'processed', failure_reason: null, mime_type: 'application/pdf', byte_size: 1000,
      sha256: 'a'.repeat(64), page_count: 1, created_at: now, updated_at: now, erased_at: null,
    })
    .execute();
  for (const [factId, value] of Object.entries(facts)) {
    const quote = value ?? '';
    // Through the domain's write: a fact with no row yet (pending) gets one.
    await inTransaction(t.ctx.db, (tx) =>
      saveFact(tx, c as CaseRow, factId, {
        value,
        status: value === null ? 'needs_input' : 'resolved',
        source: 'document_extraction',
        candidate_id: value === null ? null : `cand_${factId}`,
        anchor_match_quality: value === null ? null : 0.95,
        reason_codes: toJsonb(value === null ? ['not_found'] : []),
        evidence: toJsonb(value === null ? [] : [{ evidence_id: `ev_${factId}`, quote, location: { char_start: 0, char_end: quote.length }, doc_id: docId, page_index: 0 }]),
        provenance: toJsonb(value === null ? [] : [{ kind: 'document_text', document_id: docId, page_index: 0, quote, char_start: 0, char_end: quote.length }]),
        updated_at: now,
      }),
    );
  }
  return docId;
}

export async function answerAndSubmit(t: TestApp, session: ApplicantSession, answers: Record<string, unknown>) {
  const proof = { sessionId: session.session_id, token: session.token };
  if (Object.keys(answers).length > 0) {
    const saved = await saveFormAnswers(t.ctx, { ...proof, answers, traceId: 'test' });
    if (!saved.ok) throw new Error(saved.message);
  }
  return submitIntake(t.ctx, { ...proof, traceId: 'test' });
}

/** Runs queued case jobs until none is left (the worker's loop, in the test's time). */
export async function drainCaseJobs(t: TestApp) {
  const task = caseJobsTask(CASE_ENGINE_HANDLERS, CASE_ENGINE_OPTIONS);
  for (let i = 0; i < 20; i++) if ((await task.run(t.ctx)) === 0) return;
}

export async function readCase(t: TestApp, ws: TestWorkspace, caseId: string) {
  const res = await t.app.inject({ method: 'GET', url: `/api/v1/cases/${caseId}`, headers: { authorization: `Bearer ${ws.key}` } });
  if (res.statusCode !== 200) throw new Error(res.body);
  return res.json();
}

export async function eventTypes(t: TestApp, caseId: string) {
  const rows = await t.ctx.db.selectFrom('case_events').select('event_type').where('case_id', '=', caseId).orderBy('cursor').execute();
  return rows.map((r) => r.event_type);
}
