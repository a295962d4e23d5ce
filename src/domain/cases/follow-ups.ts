import { updateFactRow } from '../../storage/facts.ts';
import { markFollowUpAnswered, selectOpenFollowUps } from '../../storage/follow-up-questions.ts';
import type { Db } from '../../storage/schema.ts';
import { inTransactionResult } from '../../storage/unit-of-work.ts';
import { fail, ok, type Result } from '../errors.ts';
import { recordCaseEvent } from './case-events.ts';
import { lockCaseRow, type WriterDeps } from './case-writer.ts';
import { scheduleGateEvaluation } from './evaluate-case.ts';
import { authorizeApplicant, type ApplicantProof } from '../sessions/applicant-access.ts';
import { tenantOfRow } from '../../ports/tenant.ts';

/**
 * The applicant answers follow-up questions (applicant app). Each answer resolves its fact with
 * source `applicant_follow_up`; once no question is open the gates run again.
 */
export async function answerFollowUps(
  deps: WriterDeps & { db: Db },
  input: ApplicantProof & { answers: Record<string, string>; traceId: string },
): Promise<Result<{ case_id: string; open_fact_ids: string[]; runtime_status: string }>> {
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
    const blank = Object.entries(input.answers).filter(([, v]) => typeof v !== 'string' || v.trim() === '');
    if (blank.length > 0) return fail('invalid_request', `Answers must not be empty: ${blank.map(([k]) => k).join(', ')}.`);

    for (const [factId, value] of Object.entries(input.answers)) {
      await updateFactRow(tx, tenantOfRow(row), row.case_id, factId, { value: value.trim(), status: 'resolved', source: 'applicant_follow_up', candidate_id: null, anchor_match_quality: null, updated_at: now });
      await markFollowUpAnswered(tx, tenantOfRow(row), row.case_id, factId, value.trim(), now);
    }
    const cause = { traceId: input.traceId, idempotencyKey: null, sessionId: session.session_id };
    await recordCaseEvent(tx, deps, { caseRow: row, eventType: 'follow_up.answered', data: { fact_ids: Object.keys(input.answers) }, cause });
    const stillOpen = [...openIds].filter((id) => !(id in input.answers));
    const next = stillOpen.length === 0 && row.runtime_status === 'intake_in_progress' ? await scheduleGateEvaluation(tx, deps, { row, cause }) : row;
    return ok({ case_id: row.case_id, open_fact_ids: stillOpen, runtime_status: next.runtime_status });
  });
}
