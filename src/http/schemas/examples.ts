/** Example values for the OpenAPI document: one coherent case, shown from each of its views. */
const at = '2026-11-22T10:00:00.000Z';
const caseId = 'case_8Kq2mZr4Tn6VwXy0Ab1Cd2Ef';
const docId = 'doc_1Ab2Cd3Ef4Gh5Ij6Kl7Mn8Op';

export const exampleFact = {
  fact_id: 'gross_pay',
  fact_label: 'Gross pay',
  status: 'resolved',
  value: '2450.00',
  candidate_id: 'cand_5f0c2a9b7d1e4c3a8b6f0e2d',
  anchor_match_quality: 0.97,
  source: 'document_extraction',
  reason_codes: [],
  provenance: [{ kind: 'document_text', document_id: docId, page_index: 0, quote: '$2,450.00', char_start: 112, char_end: 121 }],
  verification_metadata: [],
  evidence: [{ evidence_id: 'ev_9a8b7c6d5e4f3a2b1c0d9e8f', quote: '$2,450.00', location: { char_start: 112, char_end: 121 }, doc_id: docId, page_index: 0, source: { kind: 'box', page_index: 0, x: 105.62, y: 131.3, width: 53.4, height: 12.85 } }],
  corrected_by: null,
  updated_at: at,
};

export const exampleDocument = {
  doc_id: docId,
  status: 'processed',
  mime_type: 'application/pdf',
  document_kind: 'pay_stub',
  filename: 'paystub.pdf',
  byte_size: 48211,
  sha256: '3f79bb7b435b05321651daefd374cdc681dc06faa65e374e38337b88ca046dea',
  page_count: 1,
  failure_reason: null,
  created_at: at,
  updated_at: at,
};

/** The document above with its page: the example fact's quote is `text.slice(112, 121)`. */
export const exampleDocumentDetail = {
  ...exampleDocument,
  case_id: caseId,
  pages: [
    {
      page_index: 0,
      method: 'text_layer',
      text: 'NORTHWIND TRADERS LLC\nEarnings Statement\n\nEmployee name: Maria Lopez\tPay date: 11/14/2026\nDept: Sale\nGross pay: $2,450.00\nNet pay: $1,873.20',
      width: 612,
      height: 792,
      unit: 'pt',
    },
  ],
};

/** The same document after erasure: ids, status and timestamps remain; no text. */
export const exampleErasedDocumentDetail = {
  ...exampleDocument,
  status: 'erased',
  filename: null,
  sha256: null,
  case_id: caseId,
  pages: [],
};

export const exampleQueueRow = {
  case_id: caseId,
  operating_mode: 'system_of_action',
  runtime_status: 'ready_for_review',
  queue_category: 'review',
  queue_status: 'ready',
  why_here: 'The workflow reached its review step: an operator decides.',
  why_here_code: 'review_step_reached',
  blocking_items: [],
  blocking_fact_ids: [],
  sort_timestamp: at,
  updated_at: at,
};

export const exampleCaseRecord = {
  case_id: caseId,
  case_type_id: 'income_verification',
  workflow_id: 'income_verification',
  workflow_version: 'v1',
  operating_mode: 'system_of_action',
  runtime_status: 'ready_for_review',
  case_status: null,
  external_case_id: 'loan-4711',
  external_applicant_id: null,
  external_customer_id: null,
  metadata: {},
  workspace: {
    current_node_id: 'review',
    current_node_title: 'Underwriter review',
    current_gate_id: null,
    current_gate_title: null,
    next_action: { actor: 'operator', action: 'decide', description: 'An operator approves or rejects the case.' },
    operational_summary: {
      reason: {
        why_here: exampleQueueRow.why_here,
        why_here_code: 'review_step_reached',
        queue_category: 'review',
        queue_status: 'ready',
        current_gate_id: null,
        current_node_id: 'review',
      },
      blocking_items: [],
      primary_action: { action: 'decide', label: 'Review and decide', method: 'POST', path: `/api/v1/cases/${caseId}/decision` },
      ownership: null,
      blocking_fact_ids: [],
      has_needs_input_facts: false,
      has_failed_facts: false,
    },
    facts: [exampleFact],
    documents: [exampleDocument],
    structured_inputs: { full_name: 'Jane Doe' },
    summary: { resolved_count: 1, needs_input_count: 0, failed_count: 0, document_count: 1 },
    jobs: [{ job_id: 'job_2Bc3De4Fg5Hi6Jk7Lm8No9Pq', kind: 'document_processing', status: 'succeeded', subject_id: docId, attempts: 1, last_error: null, created_at: at, updated_at: at }],
    actions: [],
    intake_session: { session_id: '0b6f7c8e-1d2a-4f5b-9c3d-2e1f0a9b8c7d', status: 'submitted', expires_at: '2026-11-23T10:00:00.000Z', submitted_at: at, created_at: at },
  },
  queue_row: exampleQueueRow,
  handoff: null,
  completed_at: null,
  created_at: at,
  updated_at: at,
};

export const examplePackage = {
  case_id: caseId,
  case_file_url: `https://dossier.example.com/app/case-files/${caseId}?token=1795336800.0gGau1qw0cdeELwWpGX-zktNR-eWEoW1tsOrOSE8f50`,
  facts: {
    gross_pay: {
      fact_label: 'Gross pay',
      status: 'resolved',
      value: '2450.00',
      source: 'document_extraction',
      anchor_match_quality: 0.97,
      reason_codes: [],
      evidence: exampleFact.evidence,
      provenance: exampleFact.provenance,
    },
  },
  documents: [exampleDocument],
  case_type_id: 'income_verification',
  workflow_version: 'v1',
  runtime_status: 'complete',
  case_status: 'approved',
  decision_reason: 'Pay stub verified against the employer.',
  completed_at: at,
  handoff: { handoff_state: 'delivered', delivery_id: 'dlv_7Yh6Tg5Rf4Ed3Ws2Qa1Zx0Cv', acknowledged_at: null },
  contents_sha256: 'd7d31c48c8cdfe807ac3fcede403553ca296d6388de235d55a7fa76accff6cff',
};
