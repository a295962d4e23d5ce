import type { CaseState, FactState } from './case-state.ts';
import { orderedFacts, projectCase } from './projection.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function renderFact(f: FactState) {
  return {
    fact_id: f.factId,
    fact_label: f.label,
    status: f.status,
    value: f.value,
    candidate_id: f.candidateId,
    anchor_match_quality: f.anchorMatchQuality,
    source: f.source,
    reason_codes: f.reasonCodes,
    provenance: f.provenance,
    verification_metadata: f.verificationMetadata,
    evidence: f.evidence,
    corrected_by: f.correctedBy ?? null,
    updated_at: f.updatedAt.toISOString(),
  };
}

export function renderCaseDocument(d: CaseState['documents'][number]) {
  return {
    doc_id: d.docId,
    status: d.status,
    mime_type: d.mimeType,
    document_kind: d.documentKind,
    filename: d.filename,
    byte_size: d.byteSize,
    sha256: d.sha256,
    page_count: d.pageCount,
    failure_reason: d.failureReason,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}

/** Every action node of the pinned workflow with its call's state (`not_started` before its trigger fires). */
export function renderActions(state: CaseState) {
  const calls = new Map((state.actions ?? []).map((a) => [a.nodeId, a]));
  return state.definition.workflow.nodes.flatMap((node) => {
    if (node.type !== 'action') return [];
    const call = calls.get(node.node_id);
    return [
      {
        node_id: node.node_id,
        title: node.title,
        connector_key: node.connector_key,
        operation_id: node.operation_id,
        when: node.when,
        status: call?.status ?? ('not_started' as const),
        attempt_count: call?.attemptCount ?? 0,
        last_attempt_at: iso(call?.lastAttemptAt ?? null),
        last_status_code: call?.lastStatusCode ?? null,
        last_duration_ms: call?.lastDurationMs ?? null,
        last_error: call?.lastError ?? null,
        next_attempt_at: iso(call?.nextAttemptAt ?? null),
        external_reference: call?.externalReference ?? null,
      },
    ];
  });
}

/** The case record of spec §2.1–2.5 plus `handoff` and the external ids (contract §6). */
export function renderCaseRecord(state: CaseState) {
  const p = projectCase(state);
  const nodes = state.definition.workflow.nodes;
  const titleOf = (id: string | null) => (id ? (nodes.find((n) => n.node_id === id)?.title ?? null) : null);
  const reason = {
    why_here: p.whyHere,
    why_here_code: p.whyHereCode,
    queue_category: p.queueCategory,
    queue_status: p.queueStatus,
    current_gate_id: state.currentGateId,
    current_node_id: state.currentNodeId,
  };
  const updatedAt = state.updatedAt.toISOString();
  return {
    case_id: state.caseId,
    case_type_id: state.caseTypeId,
    workflow_id: state.workflowId,
    workflow_version: state.workflowVersion,
    operating_mode: state.operatingMode,
    runtime_status: state.runtimeStatus,
    case_status: state.caseStatus,
    external_case_id: state.externalCaseId,
    external_applicant_id: state.externalApplicantId,
    external_customer_id: state.externalCustomerId,
    metadata: state.metadata,
    workspace: {
      current_node_id: state.currentNodeId,
      current_node_title: titleOf(state.currentNodeId),
      current_gate_id: state.currentGateId,
      current_gate_title: titleOf(state.currentGateId),
      next_action: p.nextAction,
      operational_summary: {
        reason,
        blocking_items: p.blockingItems,
        primary_action: p.primaryAction,
        ownership: null,
        blocking_fact_ids: p.blockingFactIds,
        has_needs_input_facts: p.hasNeedsInputFacts,
        has_failed_facts: p.hasFailedFacts,
      },
      facts: orderedFacts(state).map(renderFact),
      documents: state.documents.map(renderCaseDocument),
      structured_inputs: state.structuredInputs,
      summary: {
        resolved_count: p.counts.resolved,
        needs_input_count: p.counts.needsInput,
        failed_count: p.counts.failed,
        document_count: p.counts.documents,
      },
      jobs: state.jobs.map((j) => ({
        job_id: j.jobId,
        kind: j.kind,
        status: j.status,
        subject_id: j.subjectId,
        attempts: j.attempts,
        last_error: j.lastError,
        created_at: j.createdAt.toISOString(),
        updated_at: j.updatedAt.toISOString(),
      })),
      actions: renderActions(state),
      intake_session: state.session
        ? {
            session_id: state.session.sessionId,
            status: state.session.status,
            expires_at: state.session.expiresAt.toISOString(),
            submitted_at: iso(state.session.submittedAt),
            created_at: state.session.createdAt.toISOString(),
          }
        : null,
    },
    queue_row: {
      case_id: state.caseId,
      operating_mode: state.operatingMode,
      runtime_status: state.runtimeStatus,
      queue_category: p.queueCategory,
      queue_status: p.queueStatus,
      why_here: p.whyHere,
      why_here_code: p.whyHereCode,
      blocking_items: p.blockingItems,
      blocking_fact_ids: p.blockingFactIds,
      sort_timestamp: p.sortTimestamp.toISOString(),
      updated_at: updatedAt,
    },
    handoff: state.handoff
      ? {
          handoff_state: state.handoff.handoffState,
          delivery_id: state.handoff.deliveryId,
          acknowledged_at: iso(state.handoff.acknowledgedAt),
        }
      : null,
    completed_at: iso(state.completedAt),
    created_at: state.createdAt.toISOString(),
    updated_at: updatedAt,
  };
}

export type CaseRecord = ReturnType<typeof renderCaseRecord>;
