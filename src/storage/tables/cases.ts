import type { ColumnType } from 'kysely';
import type { Environment } from '../../config.ts';
import type { Json, Timestamp } from './types.ts';

export type OperatingMode = 'system_of_action' | 'system_of_record';
export type RuntimeStatus =
  | 'intake_in_progress'
  | 'processing'
  | 'gate_ready'
  | 'gate_evaluating'
  | 'ready_for_review'
  | 'complete';
export type CaseStatus = 'approved' | 'rejected' | 'decision_ready' | 'abandoned';
export type HandoffState = 'dispatching' | 'delivered' | 'dispatch_failed' | 'acknowledged';
export type SessionStatus = 'open' | 'submitted' | 'expired';

export interface CaseTypesTable {
  org_id: string;
  environment: Environment;
  case_type_id: string;
  name: string;
  operating_mode: OperatingMode;
  workflow_id: string;
  workflow_version: string;
  definition: Json<unknown>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CaseTypeVersionsTable {
  org_id: string;
  environment: Environment;
  case_type_id: string;
  workflow_version: string;
  version_number: number;
  definition_hash: string;
  definition: Json<unknown>;
  created_at: Timestamp;
}

export interface CasesTable {
  case_id: string;
  org_id: string;
  environment: Environment;
  case_type_id: string;
  workflow_id: string;
  workflow_version: string;
  operating_mode: OperatingMode;
  runtime_status: RuntimeStatus;
  origin: 'session' | 'process';
  external_case_id: string | null;
  external_applicant_id: string | null;
  external_customer_id: string | null;
  metadata: Json<Record<string, string>>;
  locale: string | null;
  structured_inputs: Json<Record<string, unknown>>;
  prefill: Json<Record<string, unknown>>;
  current_node_id: string | null;
  current_gate_id: string | null;
  gate_results: Json<unknown[]>;
  case_status: CaseStatus | null;
  decision_reason: string | null;
  completed_at: Timestamp | null;
  handoff_state: HandoffState | null;
  handoff_delivery_id: string | null;
  handoff_acknowledged_at: Timestamp | null;
  last_event_cursor: number;
  status_changed_at: Timestamp;
  queue_category: string;
  queue_status: string;
  queue_row: Json<Record<string, unknown>>;
  /** The operator who took the case ("Assign to me", migration 0025); absent on insert. */
  assigned_to: ColumnType<string | null, string | null | undefined, string | null>;
  assigned_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SessionsTable {
  session_id: string;
  case_id: string;
  org_id: string;
  environment: Environment;
  status: SessionStatus;
  token_hash: string;
  return_url: string | null;
  locale: string | null;
  expires_at: Timestamp;
  submitted_at: Timestamp | null;
  created_at: Timestamp;
}

export interface CaseEventsTable {
  event_id: string;
  case_id: string;
  org_id: string;
  environment: Environment;
  cursor: number;
  event_type: string;
  data: Json<Record<string, unknown>>;
  created_at: Timestamp;
}

export interface IdempotencyRecordsTable {
  org_id: string;
  environment: Environment;
  operation: string;
  idempotency_key: string;
  fingerprint: string;
  response_status: number;
  response_body: Json<Record<string, unknown>>;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface UsageCountersTable {
  org_id: string;
  environment: Environment;
  /** UTC month, `YYYY-MM`. */
  period: string;
  /** 0–15: the month's count is the sum over shards. */
  shard: number;
  sessions_created: number;
}

export type DocumentStatus = 'uploaded' | 'processing' | 'processed' | 'failed' | 'erased';
export type FactStatus = 'pending' | 'resolved' | 'needs_input' | 'failed';
export type FactSource = 'document_extraction' | 'applicant_input' | 'applicant_follow_up' | 'prefill' | 'operator';
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface DocumentsTable {
  doc_id: string;
  case_id: string;
  org_id: string;
  environment: Environment;
  document_kind: string | null;
  filename: string | null;
  source: 'upload' | 'url';
  source_url: string | null;
  status: DocumentStatus;
  failure_reason: string | null;
  mime_type: string | null;
  byte_size: number | null;
  sha256: string | null;
  page_count: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  erased_at: Timestamp | null;
}

export interface FactsTable {
  case_id: string;
  fact_id: string;
  org_id: string;
  environment: Environment;
  fact_label: string;
  status: FactStatus;
  value: string | null;
  candidate_id: string | null;
  anchor_match_quality: number | null;
  source: FactSource | null;
  reason_codes: Json<string[]>;
  provenance: Json<unknown[]>;
  evidence: Json<unknown[]>;
  verification_metadata: Json<unknown[]>;
  /** Who changed the value by hand last (migration 0021); absent on insert. */
  corrected_by: ColumnType<FactCorrectedBy | null, FactCorrectedBy | null | undefined, FactCorrectedBy | null>;
  updated_at: Timestamp;
}

export type FactCorrectedBy = 'applicant' | 'operator';

export interface CaseJobsTable {
  job_id: string;
  case_id: string;
  org_id: string;
  environment: Environment;
  kind: string;
  status: JobStatus;
  subject_id: string | null;
  attempts: number;
  run_after: Timestamp;
  locked_by: string | null;
  locked_until: Timestamp | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface FollowUpQuestionsTable {
  question_id: string;
  case_id: string;
  org_id: string;
  environment: Environment;
  fact_id: string;
  prompt: string;
  status: 'open' | 'answered' | 'withdrawn';
  answer: string | null;
  created_at: Timestamp;
  answered_at: Timestamp | null;
}

export interface FactCorrectionsTable {
  correction_id: string;
  case_id: string;
  org_id: string;
  environment: Environment;
  fact_id: string;
  previous_value: string | null;
  previous_status: FactStatus;
  previous_source: FactSource | null;
  new_value: string | null;
  new_status: FactStatus;
  reason: string | null;
  actor: string;
  created_at: Timestamp;
  /** The evidence the previous value was read from (migration 0026); `[]` when none or erased. */
  previous_evidence: ColumnType<unknown[], unknown[] | string | undefined, unknown[] | string>;
}

export interface DocumentBlobsTable {
  doc_id: string;
  /** The bytes when they live in the database; null when they live in the object store. */
  bytes: Buffer | null;
  /** The object holding the encrypted bytes (DOCUMENT_STORE=s3://…). */
  object_key: string | null;
  /** The document's data key, sealed under the deployment secret with the document id as associated data. */
  sealed_key: string | null;
}

export interface DocumentPagesTable {
  doc_id: string;
  page_index: number;
  method: string;
  text: string;
  ocr_confidence: number | null;
  width: number | null;
  height: number | null;
  unit: 'pt' | 'px' | null;
}

export interface CaseTables {
  document_blobs: DocumentBlobsTable;
  document_pages: DocumentPagesTable;
  follow_up_questions: FollowUpQuestionsTable;
  fact_corrections: FactCorrectionsTable;
  documents: DocumentsTable;
  facts: FactsTable;
  case_jobs: CaseJobsTable;
  case_types: CaseTypesTable;
  case_type_versions: CaseTypeVersionsTable;
  cases: CasesTable;
  sessions: SessionsTable;
  case_events: CaseEventsTable;
  idempotency_records: IdempotencyRecordsTable;
  usage_counters: UsageCountersTable;
}
