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
  case_status: CaseStatus | null;
  decision_reason: string | null;
  completed_at: Timestamp | null;
  handoff_state: HandoffState | null;
  handoff_delivery_id: string | null;
  handoff_acknowledged_at: Timestamp | null;
  last_event_cursor: number;
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
  sessions_created: number;
}

export interface CaseTables {
  case_types: CaseTypesTable;
  case_type_versions: CaseTypeVersionsTable;
  cases: CasesTable;
  sessions: SessionsTable;
  case_events: CaseEventsTable;
  idempotency_records: IdempotencyRecordsTable;
  usage_counters: UsageCountersTable;
}
