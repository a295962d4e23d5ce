import type { Environment } from '../../config.ts';
import type { Json, Timestamp } from './types.ts';

export type ConnectorAuthType = 'none' | 'bearer' | 'header' | 'basic';
export type ConnectorCallStatus = 'pending' | 'retry_scheduled' | 'succeeded' | 'failed';

export interface ConnectorsTable {
  /** Stable across replacements: the secret box is bound to it. */
  connector_id: string;
  org_id: string;
  environment: Environment;
  connector_key: string;
  name: string;
  base_url: string;
  auth_type: ConnectorAuthType;
  auth_header_name: string | null;
  /** The auth secret sealed under the deployment secret (purpose `connector-secret:<connector_id>`). */
  secret_box: string | null;
  /** The manifest's operations, as validated. */
  operations: Json<unknown[]>;
  version: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ConnectorCallsTable {
  call_id: string;
  org_id: string;
  environment: Environment;
  case_id: string;
  node_id: string;
  connector_key: string;
  operation_id: string;
  /** The rendered request (path, query, header values and body), fixed when the call is queued. */
  request: Json<Record<string, unknown>>;
  status: ConnectorCallStatus;
  attempt_count: number;
  total_attempts: number;
  next_attempt_at: Timestamp | null;
  locked_by: string | null;
  locked_until: Timestamp | null;
  last_attempt_at: Timestamp | null;
  last_status_code: number | null;
  last_duration_ms: number | null;
  last_error: string | null;
  external_reference: string | null;
  succeeded_at: Timestamp | null;
  failed_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ConnectorTables {
  connectors: ConnectorsTable;
  connector_calls: ConnectorCallsTable;
}
