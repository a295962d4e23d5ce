import { tenantOfRow } from '../../ports/tenant.ts';
import { insertFactCorrection } from '../../storage/fact-corrections.ts';
import { toJsonb } from '../../storage/json.ts';
import { saveFact, caseFacts } from '../cases/case-facts.ts';
import type { Db } from '../../storage/schema.ts';
import { inTransactionResult } from '../../storage/unit-of-work.ts';
import { checkAnswers, followUpField, type AnswersRefused } from '../case-types/answer-rules.ts';
import { confirmableFactIds } from '../case-types/fact-roles.ts';
import { answerText } from '../case-types/field-values.ts';
import { fail, ok, type Result } from '../errors.ts';
import { authorizeApplicant, type ApplicantProof } from './applicant-access.ts';
import { recordCaseEvent } from '../cases/case-events.ts';
import { lockCaseRow, type WriterDeps } from '../cases/case-writer.ts';
import { pinnedDefinition } from '../cases/load-case.ts';

/**
 * The applicant corrects values read from their documents (the confirm page, issue 26). Each
 * value is checked like a follow-up answer of the fact's type, then stored as an operator's
 * correction is: the previous value, status and source go to fact_corrections with actor
 * `applicant`, and a `fact.corrected` event says who (never the values). Unlike an operator's,
 * the evidence stays on the fact: it shows what was read, which is what the operator compares
 * the applicant's word with. `corrected_by: 'applicant'` on a fact a gate reads sends the case to
 * review (`applicant_corrected_fact`) instead of letting it pass on the applicant's word.
 * Works before and after submission while the link works and the case is not complete.
 */
export async function correctFactsAsApplicant(
  deps: WriterDeps & { db: Db },
  input: ApplicantProof & { nodeId: string; values: Record<string, unknown>; traceId: string },
): Promise<Result<{ changed_fact_ids: string[] }> | AnswersRefused> {
  const now = deps.clock.now();
  return inTransactionResult(deps.db, async (tx) => {
    const authorized = await authorizeApplicant(tx, input);
    if (!authorized.ok) return authorized;
    const session = authorized.value;
    if (session.expires_at <= now || session.status === 'expired') return fail('invalid_request', 'This session has expired.');
    const row = await lockCaseRow(tx, { tenant: tenantOfRow(session), caseId: session.case_id });
    if (!row) return fail('not_found', 'No such case.');
    if (row.runtime_status === 'complete') return fail('invalid_request', 'This case is complete; its facts can no longer be changed.');
    const definition = await pinnedDefinition(tx, row);
    const node = definition.workflow.nodes.find((n) => n.node_id === input.nodeId);
    if (node?.type !== 'upload' || !node.confirm_extracted) return fail('invalid_request', `Step ${input.nodeId} asks for no confirmation.`);
    const allowed = new Set(confirmableFactIds(definition, node));
    const unexpected = Object.keys(input.values).filter((id) => !allowed.has(id));
    if (unexpected.length > 0) return fail('invalid_request', `These facts cannot be changed here: ${unexpected.join(', ')}.`);
    const checked = checkAnswers(Object.keys(input.values).map((id) => followUpField(definition, id)), input.values);
    if (!checked.ok) return checked;

    const facts = new Map((await caseFacts(tx, row)).map((f) => [f.fact_id, f]));
    const cause = { traceId: input.traceId, idempotencyKey: null, sessionId: session.session_id };
    const changed: string[] = [];
    for (const [factId, value] of Object.entries(checked.values)) {
      const fact = facts.get(factId);
      const text = typeof value === 'string' ? value : (answerText(value) ?? '');
      if (!fact || fact.value === text) continue;
      const correctionId = deps.ids.next('fc');
      await insertFactCorrection(tx, {
        correction_id: correctionId,
        case_id: row.case_id,
        org_id: row.org_id,
        environment: row.environment,
        fact_id: factId,
        previous_value: fact.value,
        previous_status: fact.status,
        previous_source: fact.source,
        // Kept with the correction, as an operator's is: the page the value was read from stays
        // beside the applicant's word even if a later file replaces the fact's evidence.
        previous_evidence: toJsonb(fact.evidence),
        new_value: text,
        new_status: 'resolved',
        reason: null,
        actor: 'applicant',
        created_at: now,
      });
      // A person's value: extraction of a later file never overwrites it (SOURCE_RANK).
      await saveFact(tx, row, factId, { value: text, status: 'resolved', source: 'applicant_follow_up', corrected_by: 'applicant', updated_at: now });
      await recordCaseEvent(tx, deps, {
        caseRow: row,
        eventType: 'fact.corrected',
        data: { fact_id: factId, correction_id: correctionId, previous_status: fact.status, status: 'resolved', actor: 'applicant' },
        cause,
      });
      changed.push(factId);
    }
    return ok({ changed_fact_ids: changed });
  });
}
