import type { Tenant } from '../../ports/tenant.ts';
import { findCaseSnapshot, findCaseSnapshotUnscoped, type CaseSnapshot, type DocumentRow } from '../../storage/cases.ts';
import type { Executor } from '../../storage/schema.ts';
import type { CaseState, DocumentState, Evidence, GateRuleResult, Provenance } from './case-state.ts';
import { withPendingFacts } from './case-facts.ts';
import { pinnedDefinition } from './pinned-definition.ts';

export { pinnedDefinition };

/** The whole state of a case, or undefined when the workspace has no such case. */
export async function loadCaseState(deps: { db: Executor }, input: { tenant: Tenant; caseId: string }): Promise<CaseState | undefined> {
  const snapshot = await findCaseSnapshot(deps.db, input.tenant, input.caseId);
  return snapshot ? stateOfSnapshot(deps.db, snapshot) : undefined;
}

/** For callers that already proved access to the case some other way (a signed link, a claimed job). */
export async function loadCaseStateUnscoped(deps: { db: Executor }, input: { caseId: string }): Promise<CaseState | undefined> {
  const snapshot = await findCaseSnapshotUnscoped(deps.db, input.caseId);
  return snapshot ? stateOfSnapshot(deps.db, snapshot) : undefined;
}

export async function stateOfSnapshot(db: Executor, { row, facts, documents, jobs, session, calls }: CaseSnapshot): Promise<CaseState> {
  const definition = await pinnedDefinition(db, row);
  return {
    caseId: row.case_id,
    orgId: row.org_id,
    environment: row.environment,
    caseTypeId: row.case_type_id,
    workflowId: row.workflow_id,
    workflowVersion: row.workflow_version,
    operatingMode: row.operating_mode,
    runtimeStatus: row.runtime_status,
    origin: row.origin,
    externalCaseId: row.external_case_id,
    externalApplicantId: row.external_applicant_id,
    externalCustomerId: row.external_customer_id,
    metadata: row.metadata,
    locale: row.locale,
    structuredInputs: row.structured_inputs,
    prefill: row.prefill,
    currentNodeId: row.current_node_id,
    currentGateId: row.current_gate_id,
    gateResults: row.gate_results as GateRuleResult[],
    caseStatus: row.case_status,
    decisionReason: row.decision_reason,
    assignedTo: row.assigned_to,
    completedAt: row.completed_at,
    handoff: row.handoff_state
      ? { handoffState: row.handoff_state, deliveryId: row.handoff_delivery_id, acknowledgedAt: row.handoff_acknowledged_at }
      : null,
    statusChangedAt: row.status_changed_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    definition,
    facts: withPendingFacts(row, definition, facts).map((f) => ({
      factId: f.fact_id,
      label: f.fact_label,
      status: f.status,
      value: f.value,
      candidateId: f.candidate_id,
      anchorMatchQuality: f.anchor_match_quality,
      source: f.source,
      reasonCodes: f.reason_codes,
      provenance: f.provenance as Provenance[],
      evidence: f.evidence as Evidence[],
      verificationMetadata: f.verification_metadata,
      correctedBy: f.corrected_by,
      updatedAt: f.updated_at,
    })),
    documents: documents.map(documentStateOf),
    jobs: jobs.map((j) => ({
      jobId: j.job_id,
      kind: j.kind,
      status: j.status,
      subjectId: j.subject_id,
      attempts: j.attempts,
      lastError: j.last_error,
      createdAt: j.created_at,
      updatedAt: j.updated_at,
    })),
    actions: calls.map((c) => ({
      nodeId: c.node_id,
      status: c.status,
      attemptCount: c.attempt_count,
      lastAttemptAt: c.last_attempt_at,
      lastStatusCode: c.last_status_code,
      lastDurationMs: c.last_duration_ms,
      lastError: c.last_error,
      nextAttemptAt: c.next_attempt_at,
      externalReference: c.external_reference,
      updatedAt: c.updated_at,
    })),
    session: session
      ? { sessionId: session.session_id, status: session.status, expiresAt: session.expires_at, submittedAt: session.submitted_at, createdAt: session.created_at }
      : null,
  };
}

/** A stored document as the case state holds it. */
export function documentStateOf(d: DocumentRow): DocumentState {
  return {
    docId: d.doc_id,
    documentKind: d.document_kind,
    filename: d.filename,
    status: d.status,
    failureReason: d.failure_reason,
    mimeType: d.mime_type,
    byteSize: d.byte_size,
    sha256: d.sha256,
    pageCount: d.page_count,
    createdAt: d.created_at,
    updatedAt: d.updated_at,
  };
}
