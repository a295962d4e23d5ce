import { saveFact } from '../cases/case-facts.ts';
import { markFollowUpAnswered, selectOpenFollowUps } from '../../storage/follow-up-questions.ts';
import type { Db } from '../../storage/schema.ts';
import { inTransactionResult } from '../../storage/unit-of-work.ts';
import { checkAnswers, followUpField, type AnswersRefused } from '../case-types/answer-rules.ts';
import { answerText } from '../case-types/field-values.ts';
import { fail, ok, type Result } from '../errors.ts';
import { pinnedDefinition } from '../cases/load-case.ts';
import { recordCaseEvent } from '../cases/case-events.ts';
import { lockCaseRow, type WriterDeps } from '../cases/case-writer.ts';
import { scheduleGateEvaluation } from '../cases/evaluate-case.ts';
import { authorizeApplicant, type ApplicantProof } from './applicant-access.ts';
import { tenantOfRow } from '../../ports/tenant.ts';

/**
 * The applicant answers follow-up questions (applicant app). Each answer is checked like a form
 * answer of its fact's type (`followUpField`) and resolves its fact with source
 * `applicant_follow_up`; once no question is open the gates run again.
 */
export async function answerFollowUps(
  deps: WriterDeps & { db: Db },
  input: ApplicantProof & { answers: Record<string, unknown>; traceId: string },
): Promise<Result<{ case_id: string; open_fact_ids: string[]; runtime_status: string }> | AnswersRefused> {
  const now = deps.clock.now();
  return inTransactionResult(deps.db, async (tx) => {
    const authorized = await authorizeApplicant(tx, input);
    if (!authorized.ok) return authorized;
    const session = authorized.value;
    if (session.expires_at <= now) return fail('invalid_request', 'This session has expired.');
    const row = await lockCaseRow(tx, { tenant: tenantOfRow(session), caseId: session.case_id });
    if (!row) return fail('not_found', 'No such case.');
    const open = await selectOpenFollowUps(tx, tenantOfRow(row), row.case_id);
    const openIds = new Set(open.map((q) => q.fact_id));
    const unexpected = Object.keys(input.answers).filter((id) => !openIds.has(id));
    if (unexpected.length > 0) return fail('invalid_request', `No open question for: ${unexpected.join(', ')}.`);
    const definition = await pinnedDefinition(tx, row);
    const checked = checkAnswers(open.map((q) => followUpField(definition, q.fact_id)), input.answers);
    if (!checked.ok) return checked;

    for (const [factId, value] of Object.entries(checked.values)) {
      // Follow-up fields are never addresses of parts (followUpField), so every value is text.
      const text = typeof value === 'string' ? value : (answerText(value) ?? '');
      await saveFact(tx, row, factId, { value: text, status: 'resolved', source: 'applicant_follow_up', candidate_id: null, anchor_match_quality: null, updated_at: now });
      await markFollowUpAnswered(tx, tenantOfRow(row), row.case_id, factId, text, now);
    }
    const cause = { traceId: input.traceId, idempotencyKey: null, sessionId: session.session_id };
    await recordCaseEvent(tx, deps, { caseRow: row, eventType: 'follow_up.answered', data: { fact_ids: Object.keys(input.answers) }, cause });
    const stillOpen = [...openIds].filter((id) => !(id in input.answers));
    const next = stillOpen.length === 0 && row.runtime_status === 'intake_in_progress' ? await scheduleGateEvaluation(tx, deps, { row, cause }) : row;
    return ok({ case_id: row.case_id, open_fact_ids: stillOpen, runtime_status: next.runtime_status });
  });
}
