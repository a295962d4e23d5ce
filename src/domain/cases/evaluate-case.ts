import { enqueueCaseJob } from '../../storage/case-jobs.ts';
import type { CaseRow } from '../../storage/cases.ts';
import { findCaseSnapshotUnscoped } from '../../storage/cases.ts';
import { saveFact, caseFacts } from './case-facts.ts';
import { insertFollowUpQuestion, selectOpenFollowUps } from '../../storage/follow-up-questions.ts';
import { toJsonb } from '../../storage/json.ts';
import type { Db, Tx } from '../../storage/schema.ts';
import { inTransaction } from '../../storage/unit-of-work.ts';
import { recordCaseEvent } from './case-events.ts';
import type { Cause } from '../../ports/enqueuers.ts';
import { lockCaseRowUnscoped, transitionCase, type WriterDeps } from './case-writer.ts';
import { stateOfSnapshot } from './load-case.ts';
import { planWorkflow, RULE_REASON_CODES, type WorkflowPlan } from './plan-workflow.ts';
import { tenantOfRow } from '../../ports/tenant.ts';

export const GATE_EVALUATION_JOB = 'gate_evaluation';

/**
 * Moves a case to `gate_ready` and queues its evaluation. The worker evaluates it moments later,
 * so the API call that submitted never waits on the gates.
 */
export async function scheduleGateEvaluation(tx: Tx, deps: WriterDeps, input: { row: CaseRow; cause: Cause }): Promise<CaseRow> {
  const { row, cause } = input;
  const ready = await transitionCase(tx, deps, { row, to: 'gate_ready', cause });
  await enqueueCaseJob(tx, {
    jobId: deps.ids.next('job'),
    caseId: row.case_id,
    orgId: row.org_id,
    environment: row.environment,
    kind: GATE_EVALUATION_JOB,
    subjectId: null,
    runAfter: deps.clock.now(),
  });
  return ready;
}

/**
 * The gate evaluation job: `gate_ready` → `gate_evaluating` (committed, so the queue shows it),
 * then the plan applied in a second transaction. A crash in between leaves the case in
 * `gate_evaluating` and the job's lease runs out; the retry resumes from there.
 */
export async function evaluateCaseGates(deps: WriterDeps & { db: Db }, input: { caseId: string }): Promise<void> {
  const { caseId } = input;
  const cause: Cause = { traceId: `job:${GATE_EVALUATION_JOB}:${caseId}`, idempotencyKey: null };
  await inTransaction(deps.db, async (tx) => {
    const row = await lockCaseRowUnscoped(tx, { caseId });
    if (row?.runtime_status === 'gate_ready') await transitionCase(tx, deps, { row, to: 'gate_evaluating', cause });
  });
  await inTransaction(deps.db, async (tx) => {
    const row = await lockCaseRowUnscoped(tx, { caseId });
    if (row?.runtime_status !== 'gate_evaluating') return;
    const snapshot = await findCaseSnapshotUnscoped(tx, caseId);
    const state = await stateOfSnapshot(tx, snapshot!);
    await applyPlan(tx, deps, row, planWorkflow(state, deps.clock.now()), cause);
  });
}

async function applyPlan(tx: Tx, deps: WriterDeps, row: CaseRow, plan: WorkflowPlan, cause: Cause): Promise<void> {
  await annotateFacts(tx, deps, row, plan);
  const { outcome, gateResults } = plan;
  switch (outcome.kind) {
    case 'follow_up': {
      await openFollowUpQuestions(tx, deps, row, outcome.factIds);
      const updated = await transitionCase(tx, deps, {
        row,
        to: 'intake_in_progress',
        patch: { currentNodeId: outcome.gateId, currentGateId: outcome.gateId, gateResults },
        cause,
      });
      await recordCaseEvent(tx, deps, { caseRow: updated, eventType: 'case.needs_input', data: { gate_id: outcome.gateId, fact_ids: outcome.factIds }, cause });
      return;
    }
    case 'review': {
      const updated = await transitionCase(tx, deps, {
        row,
        to: 'ready_for_review',
        patch: { currentNodeId: outcome.nodeId, currentGateId: outcome.gateId, gateResults },
        cause,
      });
      await recordCaseEvent(tx, deps, {
        caseRow: updated,
        eventType: 'case.ready_for_review',
        data: { reason: outcome.reason, node_id: outcome.nodeId, gate_id: outcome.gateId },
        cause,
      });
      return;
    }
    case 'decision_ready': {
      const updated = await transitionCase(tx, deps, {
        row,
        to: 'complete',
        patch: { caseStatus: 'decision_ready', currentNodeId: outcome.nodeId, currentGateId: null, gateResults },
        cause,
      });
      await recordCaseEvent(tx, deps, { caseRow: updated, eventType: 'case.completed', data: { case_status: 'decision_ready' }, cause });
      return;
    }
  }
}

/** Writes what the gates found onto the facts: rule reason codes, comparisons, and needs_input. */
async function annotateFacts(tx: Tx, deps: WriterDeps, row: CaseRow, plan: WorkflowPlan): Promise<void> {
  const facts = await caseFacts(tx, row);
  const needsInput = new Set(plan.evaluations.flatMap((e) => e.needsInputFactIds));
  for (const fact of facts) {
    const ruleCodes = plan.evaluations.flatMap((e) => e.factReasonCodes.get(fact.fact_id) ?? []);
    const verifications = plan.evaluations.flatMap((e) => e.factVerifications.get(fact.fact_id) ?? []);
    const reasonCodes = [...new Set([...fact.reason_codes.filter((c) => !RULE_REASON_CODES.has(c)), ...ruleCodes])];
    const status = needsInput.has(fact.fact_id) && (fact.status === 'pending' || fact.status === 'needs_input') ? 'needs_input' : fact.status;
    const unchanged =
      status === fact.status &&
      JSON.stringify(reasonCodes) === JSON.stringify(fact.reason_codes) &&
      JSON.stringify(verifications) === JSON.stringify(fact.verification_metadata);
    if (unchanged) continue;
    await saveFact(tx, row, fact.fact_id, { status, reason_codes: toJsonb(reasonCodes), verification_metadata: toJsonb(verifications), updated_at: deps.clock.now() });
  }
}

async function openFollowUpQuestions(tx: Tx, deps: WriterDeps, row: CaseRow, factIds: string[]): Promise<void> {
  const open = new Set((await selectOpenFollowUps(tx, tenantOfRow(row), row.case_id)).map((r) => r.fact_id));
  const facts = await caseFacts(tx, row);
  for (const factId of factIds) {
    if (open.has(factId)) continue;
    const label = facts.find((f) => f.fact_id === factId)?.fact_label ?? factId;
    await insertFollowUpQuestion(tx, {
        question_id: deps.ids.next('fq'),
        case_id: row.case_id,
        org_id: row.org_id,
        environment: row.environment,
        fact_id: factId,
        prompt: `We could not confirm "${label}" from your documents. Please enter it.`,
        status: 'open',
        answer: null,
        created_at: deps.clock.now(),
        answered_at: null,
      });
  }
}
