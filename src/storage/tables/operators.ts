import type { Environment } from '../../config.ts';
import type { Timestamp } from './types.ts';

export type OperatorRole = 'admin' | 'reviewer';

export interface OperatorsTable {
  operator_id: string;
  org_id: string;
  email: string;
  /** argon2id PHC string; the password itself is never stored. */
  password_hash: string;
  role: OperatorRole;
  disabled_at: Timestamp | null;
  last_sign_in_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface OperatorSessionsTable {
  session_id: string;
  /** SHA-256 of the cookie's token. */
  token_hash: string;
  operator_id: string;
  org_id: string;
  /** The environment the dashboard shows (the test/live switch). */
  environment: Environment;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface SignInFailuresTable {
  bucket: string;
  window_start: Timestamp;
  failures: number;
}

export interface OperatorInvitationsTable {
  invitation_id: string;
  org_id: string;
  email: string;
  role: OperatorRole;
  /** SHA-256 of the link's token. */
  token_hash: string;
  invited_by: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  accepted_at: Timestamp | null;
  accepted_operator_id: string | null;
  withdrawn_at: Timestamp | null;
}

export interface OperatorTables {
  operators: OperatorsTable;
  operator_sessions: OperatorSessionsTable;
  sign_in_failures: SignInFailuresTable;
  operator_invitations: OperatorInvitationsTable;
}
