import { canonicalJson, sha256Hex } from '../canonical-json.ts';
import { renderCaseDocument } from '../cases/case-record.ts';
import type { CaseState } from '../cases/case-state.ts';
import { orderedFacts } from '../cases/projection.ts';

/** The review-ready package (spec §2.7): facts keyed by fact id, with their evidence, and the documents. */
export function buildCasePackage(state: CaseState, caseFileUrl: string | null) {
  const facts = Object.fromEntries(
    orderedFacts(state).map((f) => [
      f.factId,
      {
        fact_label: f.label,
        status: f.status,
        value: f.value,
        source: f.source,
        anchor_match_quality: f.anchorMatchQuality,
        reason_codes: f.reasonCodes,
        evidence: f.evidence,
        provenance: f.provenance,
      },
    ]),
  );
  const documents = state.documents.map(renderCaseDocument);
  const contents = {
    case_id: state.caseId,
    case_type_id: state.caseTypeId,
    workflow_version: state.workflowVersion,
    runtime_status: state.runtimeStatus,
    case_status: state.caseStatus,
    decision_reason: state.decisionReason,
    facts,
    documents,
  };
  return {
    case_id: state.caseId,
    case_file_url: caseFileUrl,
    facts,
    documents,
    case_type_id: state.caseTypeId,
    workflow_version: state.workflowVersion,
    runtime_status: state.runtimeStatus,
    case_status: state.caseStatus,
    decision_reason: state.decisionReason,
    completed_at: state.completedAt?.toISOString() ?? null,
    handoff: state.handoff
      ? { handoff_state: state.handoff.handoffState, delivery_id: state.handoff.deliveryId, acknowledged_at: state.handoff.acknowledgedAt?.toISOString() ?? null }
      : null,
    /** SHA-256 of the canonical JSON of the package contents: the case file prints it, so a copy can be checked. */
    contents_sha256: sha256Hex(canonicalJson(contents)),
  };
}

export type CasePackage = ReturnType<typeof buildCasePackage>;
