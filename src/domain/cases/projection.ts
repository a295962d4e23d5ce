import { factCanBlock, gateFactIds } from '../case-types/fact-roles.ts';
import type { CaseState, FactState } from './case-state.ts';
import { WHY_HERE, type QueueCategory, type QueueStatus, type WhyHereCode } from './queue.ts';

export interface BlockingItem {
  kind: 'rule' | 'fact' | 'document' | 'action';
  id: string;
  why: string;
  fact_ids: string[];
  reason_codes: string[];
}

export interface NextAction {
  actor: 'applicant' | 'system' | 'operator' | 'customer';
  action: string;
  description: string;
  fact_ids?: string[];
  delivery_id?: string;
}

export interface Projection {
  queueCategory: QueueCategory;
  queueStatus: QueueStatus;
  whyHereCode: WhyHereCode;
  whyHere: string;
  blockingItems: BlockingItem[];
  blockingFactIds: string[];
  hasNeedsInputFacts: boolean;
  hasFailedFacts: boolean;
  nextAction: NextAction | null;
  primaryAction: { action: string; label: string; method: string; path: string } | null;
  counts: { resolved: number; needsInput: number; failed: number; documents: number };
  sortTimestamp: Date;
}

/**
 * The one function that derives the queue position, blocking items and counts from a case. The
 * workspace, operational_summary and queue_row are all rendered from its result, so they cannot
 * disagree. Pure: the same state always gives the same projection.
 */
export function projectCase(state: CaseState): Projection {
  const facts = orderedFacts(state);
  const needsInput = facts.filter((f) => f.status === 'needs_input');
  const failedFacts = facts.filter((f) => f.status === 'failed');
  // An optional fact that no gate reads is shown as it is, but never holds the case up.
  const gateFacts = gateFactIds(state.definition);
  const blocks = (f: FactState) => factCanBlock(state.definition, f.factId, gateFacts);
  const failedRules = state.gateResults.filter((r) => r.outcome === 'failed');
  const failedDocuments = state.documents.filter((d) => d.status === 'failed');
  const complete = state.runtimeStatus === 'complete';
  const failedActions = (state.actions ?? []).filter((a) => a.status === 'failed');
  const actionItems: BlockingItem[] = failedActions.map((a) => ({
    kind: 'action',
    id: a.nodeId,
    why: `The action "${titleOfNode(state, a.nodeId)}" failed after ${a.attemptCount} attempt${a.attemptCount === 1 ? '' : 's'}${a.lastError ? ` (${a.lastError})` : ''}.`,
    fact_ids: [],
    reason_codes: ['connector_call_failed'],
  }));

  const blockingItems: BlockingItem[] = complete
    ? actionItems
    : [
        ...actionItems,
        ...failedRules.map((r) => ({ kind: 'rule' as const, id: r.rule_id, why: r.why, fact_ids: r.fact_ids, reason_codes: [`rule_${r.type}_failed`] })),
        ...[...failedFacts, ...needsInput].filter(blocks).map((f) => ({
          kind: 'fact' as const,
          id: f.factId,
          why: f.status === 'failed' ? `${f.label} could not be established.` : `${f.label} needs input.`,
          fact_ids: [f.factId],
          reason_codes: f.reasonCodes,
        })),
        ...failedDocuments.map((d) => ({
          kind: 'document' as const,
          id: d.docId,
          why: `A document could not be processed (${d.failureReason ?? 'unknown reason'}).`,
          fact_ids: [],
          reason_codes: d.failureReason ? [d.failureReason] : [],
        })),
      ];
  const blockingSet = new Set(blockingItems.flatMap((b) => b.fact_ids));
  const blockingFactIds = facts.map((f) => f.factId).filter((id) => blockingSet.has(id));

  // A failed action is an exception whatever the case's status: on_approved actions run after completion.
  const { queueCategory, queueStatus, whyHereCode } = failedActions.length > 0
    ? { queueCategory: 'exception' as const, queueStatus: 'ready' as const, whyHereCode: 'connector_call_failed' as const }
    : queuePosition(state, {
    failedRules: failedRules.length,
    failedDocuments: failedDocuments.length,
    needsInput: needsInput.filter(blocks).length,
  });

  return {
    queueCategory,
    queueStatus,
    whyHereCode,
    whyHere: WHY_HERE[whyHereCode],
    blockingItems,
    blockingFactIds,
    hasNeedsInputFacts: needsInput.length > 0,
    hasFailedFacts: failedFacts.length > 0,
    nextAction: failedActions.length > 0
      ? { actor: 'operator', action: 'retry_action', description: 'Fix the cause (the connector, or the customer system), then retry the failed action.' }
      : nextActionOf(state, queueCategory, blockingFactIds),
    primaryAction: failedActions.length > 0
      ? { action: 'retry_action', label: 'Retry the action', method: 'POST', path: `/api/v1/cases/${state.caseId}/actions/${failedActions[0]!.nodeId}/retry` }
      : queueCategory === 'review' || queueCategory === 'exception'
        ? { action: 'decide', label: 'Review and decide', method: 'POST', path: `/api/v1/cases/${state.caseId}/decision` }
        : null,
    counts: {
      resolved: facts.filter((f) => f.status === 'resolved').length,
      needsInput: needsInput.length,
      failed: failedFacts.length,
      documents: state.documents.length,
    },
    sortTimestamp: state.statusChangedAt,
  };
}

function titleOfNode(state: CaseState, nodeId: string): string {
  return state.definition.workflow.nodes.find((n) => n.node_id === nodeId)?.title ?? nodeId;
}

/** Facts in the order the case type declares them, so every view lists them alike. */
export function orderedFacts(state: CaseState): FactState[] {
  const order = new Map(state.definition.facts.map((f, i) => [f.fact_id, i]));
  return [...state.facts].sort((a, b) => (order.get(a.factId) ?? 1e9) - (order.get(b.factId) ?? 1e9) || a.factId.localeCompare(b.factId));
}

function queuePosition(
  state: CaseState,
  problems: { failedRules: number; failedDocuments: number; needsInput: number },
): { queueCategory: QueueCategory; queueStatus: QueueStatus; whyHereCode: WhyHereCode } {
  switch (state.runtimeStatus) {
    case 'complete':
      return { queueCategory: 'done', queueStatus: 'closed', whyHereCode: `completed_${state.caseStatus ?? 'decision_ready'}` };
    case 'ready_for_review': {
      const whyHereCode: WhyHereCode =
        problems.failedRules > 0
          ? 'gate_failed'
          : problems.failedDocuments > 0
            ? 'document_failed'
            : problems.needsInput > 0 && !hasApplicant(state)
              ? 'needs_input_without_applicant'
              : correctedByApplicant(state)
                ? 'applicant_corrected_fact'
                : 'review_step_reached';
      return { queueCategory: whyHereCode === 'review_step_reached' || whyHereCode === 'applicant_corrected_fact' ? 'review' : 'exception', queueStatus: 'ready', whyHereCode };
    }
    case 'intake_in_progress':
      return state.session?.status === 'submitted'
        ? { queueCategory: 'follow_up', queueStatus: 'waiting_on_applicant', whyHereCode: 'awaiting_follow_up_answers' }
        : { queueCategory: 'intake', queueStatus: 'waiting_on_applicant', whyHereCode: 'awaiting_applicant_submission' };
    case 'processing':
      return { queueCategory: 'processing', queueStatus: 'waiting_on_system', whyHereCode: 'documents_processing' };
    case 'gate_ready':
      return { queueCategory: 'processing', queueStatus: 'waiting_on_system', whyHereCode: 'awaiting_gate_evaluation' };
    case 'gate_evaluating':
      return { queueCategory: 'processing', queueStatus: 'waiting_on_system', whyHereCode: 'gates_evaluating' };
  }
}

/** The applicant changed a value a gate reads (a match included): it never passes unseen (issue 26). */
export function correctedByApplicant(state: Pick<CaseState, 'definition' | 'facts'>): boolean {
  const gateFacts = gateFactIds(state.definition);
  return state.facts.some((f) => f.correctedBy === 'applicant' && gateFacts.has(f.factId));
}

/**
 * Someone could be asked when the case entered its status: it came from a session whose link
 * still worked then (the same test the gates apply with their clock, `applicantCanAnswer`). A
 * case in review whose facts need input while its applicant could answer was sent there by a
 * review step, not for want of an applicant, and must not say "there is no applicant to ask".
 */
function hasApplicant(state: CaseState): boolean {
  return state.origin === 'session' && state.session !== null && state.session.status !== 'expired' && state.session.expiresAt > state.statusChangedAt;
}

function nextActionOf(state: CaseState, category: QueueCategory, blockingFactIds: string[]): NextAction | null {
  switch (category) {
    case 'intake':
      return { actor: 'applicant', action: 'complete_intake', description: 'The applicant completes the form steps and uploads, then submits.' };
    case 'follow_up':
      return { actor: 'applicant', action: 'answer_follow_up', description: 'The applicant answers the follow-up questions.', fact_ids: blockingFactIds };
    case 'processing':
      return { actor: 'system', action: state.runtimeStatus === 'processing' ? 'process_documents' : 'evaluate_gates', description: 'Dossier is working; no one needs to act.' };
    case 'review':
    case 'exception':
      return { actor: 'operator', action: 'decide', description: 'An operator approves or rejects the case.' };
    case 'done':
      if (state.handoff?.handoffState === 'delivered' && state.handoff.deliveryId) {
        return { actor: 'customer', action: 'acknowledge_handoff', description: 'The customer system acknowledges the case.completed delivery.', delivery_id: state.handoff.deliveryId };
      }
      return null;
  }
}
