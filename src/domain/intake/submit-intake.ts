import { updateCaseRow, updateSessionRow } from '../../storage/cases.ts';
import { selectCaseDocuments } from '../../storage/documents.ts';
import { saveFact } from '../cases/case-facts.ts';
import type { Db } from '../../storage/schema.ts';
import { toJsonb } from '../../storage/json.ts';
import { inTransactionResult } from '../../storage/unit-of-work.ts';
import type { FormNode, UploadNode } from '../case-types/definition.ts';
import { pinnedDefinition } from '../cases/load-case.ts';
import { fail, ok, type Result } from '../errors.ts';
import { recordCaseEvent } from '../cases/case-events.ts';
import type { Cause } from '../../ports/enqueuers.ts';
import { lockCaseRow, type WriterDeps } from '../cases/case-writer.ts';
import { scheduleGateEvaluation } from '../cases/evaluate-case.ts';
import { checkAnswers, type AnswersRefused } from '../case-types/answer-rules.ts';
import { answerText } from '../case-types/field-values.ts';
import { authorizeApplicant, type ApplicantProof } from './applicant-access.ts';
import { tenantOfRow } from '../../ports/tenant.ts';

export interface SubmitResult {
  case_id: string;
  session_id: string;
  runtime_status: string;
}

/**
 * The applicant submits the intake (the applicant app calls this once the signed link has been
 * verified). Required form fields must be answered and required documents uploaded; then the
 * session is `submitted`, `v1.intake.submitted` goes out, and — unless documents are still being
 * processed, in which case processing finishes the move — the gates are scheduled.
 */
export async function submitIntake(deps: WriterDeps & { db: Db }, input: ApplicantProof & { traceId: string }): Promise<Result<SubmitResult>> {
  const now = deps.clock.now();
  return inTransactionResult(deps.db, async (tx) => {
    const authorized = await authorizeApplicant(tx, input);
    if (!authorized.ok) return authorized;
    const session = authorized.value;
    if (session.status === 'submitted') return fail('invalid_request', 'This intake has already been submitted.');
    if (session.status === 'expired' || session.expires_at <= now) return fail('invalid_request', 'This session has expired.');
    const row = await lockCaseRow(tx, { tenant: tenantOfRow(session), caseId: session.case_id });
    if (!row) return fail('not_found', 'No such case.');
    if (row.runtime_status !== 'intake_in_progress' && row.runtime_status !== 'processing') {
      return fail('invalid_request', `The case cannot take a submission while ${row.runtime_status}.`);
    }
    const definition = await pinnedDefinition(tx, row);
    const answers = { ...row.prefill, ...row.structured_inputs };
    const documents = await selectCaseDocuments(tx, tenantOfRow(row), row.case_id);

    const missing: string[] = [];
    for (const node of definition.workflow.nodes) {
      if (node.type === 'form') {
        for (const field of (node as FormNode).fields) {
          if (field.required && answerText(answers[field.field_id]) === undefined) missing.push(field.field_id);
        }
      }
      if (node.type === 'upload') {
        for (const doc of (node as UploadNode).documents) {
          const present = documents.some((d) => d.document_kind === doc.document_kind && d.status !== 'erased' && d.status !== 'failed');
          if (doc.required && !present) missing.push(doc.document_kind);
        }
      }
    }
    if (missing.length > 0) return fail('invalid_request', `The intake is incomplete: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} required.`);

    await updateSessionRow(tx, tenantOfRow(session), session.session_id, { status: 'submitted', submitted_at: now });
    // Form answers whose field shares a fact's id stand for that fact until a document says more.
    for (const fact of definition.facts) {
      const value = answerText(answers[fact.fact_id]);
      if (value === undefined) continue;
      const source = row.structured_inputs[fact.fact_id] !== undefined ? 'applicant_input' : 'prefill';
      await saveFact(tx, row, fact.fact_id, { value, status: 'resolved', source, updated_at: now }, ['pending', 'needs_input']);
    }
    await updateCaseRow(tx, tenantOfRow(row), row.case_id, { structured_inputs: toJsonb(row.structured_inputs), updated_at: now });
    const cause: Cause = { traceId: input.traceId, idempotencyKey: null, sessionId: session.session_id };
    await recordCaseEvent(tx, deps, { caseRow: row, eventType: 'intake.submitted', data: { session_id: session.session_id }, cause });
    const stillProcessing = documents.some((d) => d.status === 'uploaded' || d.status === 'processing');
    const next = stillProcessing || row.runtime_status === 'processing' ? row : await scheduleGateEvaluation(tx, deps, { row, cause });
    return ok({ case_id: row.case_id, session_id: session.session_id, runtime_status: next.runtime_status });
  });
}

/**
 * Saves form answers for the applicant app, keyed by field id. Each answer is checked by its
 * field's rules (`checkAnswer`) and stored normalised ("£1,250" as "1250.00", a date's parts as
 * `YYYY-MM-DD`); if any is refused, nothing is saved and the failure names each field's problem.
 */
export async function saveFormAnswers(
  deps: WriterDeps & { db: Db },
  input: ApplicantProof & { answers: Record<string, unknown>; traceId: string },
): Promise<Result<{ case_id: string }> | AnswersRefused> {
  return inTransactionResult(deps.db, async (tx) => {
    const authorized = await authorizeApplicant(tx, input);
    if (!authorized.ok) return authorized;
    const session = authorized.value;
    if (session.status !== 'open' || session.expires_at <= deps.clock.now()) return fail('invalid_request', 'This session no longer takes answers.');
    const row = await lockCaseRow(tx, { tenant: tenantOfRow(session), caseId: session.case_id });
    if (!row) return fail('not_found', 'No such case.');
    const definition = await pinnedDefinition(tx, row);
    const fields = definition.workflow.nodes.flatMap((n) => (n.type === 'form' ? n.fields : []));
    const known = new Set(fields.map((f) => f.field_id));
    const unknown = Object.keys(input.answers).filter((k) => !known.has(k));
    if (unknown.length > 0) return fail('invalid_request', `Unknown form fields: ${unknown.join(', ')}.`);
    const checked = checkAnswers(fields, input.answers);
    if (!checked.ok) return checked;
    const merged = { ...row.structured_inputs, ...checked.values };
    await updateCaseRow(tx, tenantOfRow(row), row.case_id, { structured_inputs: toJsonb(merged), updated_at: deps.clock.now() });
    await recordCaseEvent(tx, deps, {
      caseRow: row,
      eventType: 'intake.answers_saved',
      data: { field_ids: Object.keys(input.answers) },
      cause: { traceId: input.traceId, idempotencyKey: null, sessionId: session.session_id },
    });
    return ok({ case_id: row.case_id });
  });
}
