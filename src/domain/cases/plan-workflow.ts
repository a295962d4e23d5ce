import { evaluateGate, type GateEvaluation } from './evaluate-gate.ts';
import type { CaseState, GateRuleResult } from './case-state.ts';
import { correctedByApplicant } from './projection.ts';

/** Where gate evaluation leaves a case. */
export type WorkflowOutcome =
  | { kind: 'follow_up'; gateId: string; factIds: string[] }
  | { kind: 'review'; nodeId: string; gateId: string | null; reason: 'review_node' | 'gate_failed' | 'needs_input_without_applicant' | 'operator_decides' }
  | { kind: 'decision_ready'; nodeId: string };

export interface WorkflowPlan {
  outcome: WorkflowOutcome;
  /** Rule outcomes of every gate evaluated, in workflow order. */
  gateResults: GateRuleResult[];
  /** Per fact: rule reason codes and verification entries from the gates evaluated. */
  evaluations: GateEvaluation[];
}

/**
 * Walks the pinned workflow after submission: form and upload steps are complete, gates are
 * evaluated in order, and the walk stops at the first gate that does not pass or at a review
 * node. Pure: the same case state and day always give the same plan.
 *
 * - a failed rule → operator review;
 * - facts needing input → follow-up questions, or operator review when there is no applicant
 *   (a /process case, or a session that has expired);
 * - the end of the workflow → `decision_ready` for system_of_record, operator review for
 *   system_of_action (its operators always decide).
 */
export function planWorkflow(state: CaseState, now: Date): WorkflowPlan {
  const gateResults: GateRuleResult[] = [];
  const evaluations: GateEvaluation[] = [];
  const nodes = state.definition.workflow.nodes;
  for (const node of nodes) {
    if (node.type === 'review') {
      return { outcome: { kind: 'review', nodeId: node.node_id, gateId: null, reason: 'review_node' }, gateResults, evaluations };
    }
    if (node.type !== 'gate') continue;
    const evaluation = evaluateGate(node, {
      definition: state.definition,
      facts: state.facts,
      structuredInputs: state.structuredInputs,
      prefill: state.prefill,
      now,
    });
    gateResults.push(...evaluation.results);
    evaluations.push(evaluation);
    if (evaluation.outcome === 'failed') {
      return { outcome: { kind: 'review', nodeId: node.node_id, gateId: node.node_id, reason: 'gate_failed' }, gateResults, evaluations };
    }
    if (evaluation.outcome === 'needs_input') {
      const outcome: WorkflowOutcome =
        applicantCanAnswer(state, now)
          ? { kind: 'follow_up', gateId: node.node_id, factIds: evaluation.needsInputFactIds }
          : { kind: 'review', nodeId: node.node_id, gateId: node.node_id, reason: 'needs_input_without_applicant' };
      return { outcome, gateResults, evaluations };
    }
  }
  const last = nodes.at(-1)!.node_id;
  // A value the applicant changed by hand passed the gates on their word alone: a person looks at
  // it before the customer's system hears "decision ready" (issue 26).
  return {
    outcome:
      state.operatingMode === 'system_of_record' && !correctedByApplicant(state)
        ? { kind: 'decision_ready', nodeId: last }
        : { kind: 'review', nodeId: last, gateId: null, reason: 'operator_decides' },
    gateResults,
    evaluations,
  };
}

/** An applicant exists and their link still works: follow-up questions can reach them. */
function applicantCanAnswer(state: CaseState, now: Date): boolean {
  return state.origin === 'session' && state.session !== null && state.session.expiresAt > now;
}

/** Reason codes gates write on facts; others on a fact (from extraction) are kept as they are. */
export const RULE_REASON_CODES = new Set([
  'missing_value',
  'fact_failed',
  'not_a_date',
  'date_in_future',
  'older_than_allowed',
  'input_missing',
  'input_mismatch',
  'not_a_number',
  'below_minimum',
  'above_maximum',
  'not_an_allowed_value',
]);
