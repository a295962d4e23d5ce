import type { ColumnType } from 'kysely';
import type { Environment } from '../../config.ts';
import type { Timestamp } from './types.ts';

export interface SchemaMigrationsTable {
  migration_id: string;
  applied_at: ColumnType<Date, Date | string | undefined, never>;
}

/** Deployment-wide values the service creates for itself (generated secret, demo credentials). */
export interface SettingsTable {
  name: string;
  value: string;
  updated_at: Timestamp;
}

export type BillingStatus = 'active' | 'inactive';

export interface OrgsTable {
  org_id: string;
  name: string;
  billing_status: BillingStatus;
  legal_terms_version: string | null;
  legal_accepted_at: Timestamp | null;
  /** The operator who accepted the terms in the dashboard; null when accepted through the CLI. */
  legal_accepted_by: string | null;
  live_usage_cap: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApiKeysTable {
  key_id: string;
  org_id: string;
  environment: Environment;
  name: string | null;
  /** SHA-256 of the whole key; the key itself is never stored. */
  key_hash: string;
  /** Last four characters, so people can tell their keys apart. */
  key_hint: string;
  scopes: string[];
  rate_limit_per_minute: number | null;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
  last_used_at: Timestamp | null;
  created_at: Timestamp;
}

export interface FoundationTables {
  schema_migrations: SchemaMigrationsTable;
  settings: SettingsTable;
  orgs: OrgsTable;
  api_keys: ApiKeysTable;
}
