import { sql } from 'kysely';
import type { Migration } from './index.ts';

/**
 * Connectors (issue 14): named, versioned descriptions of a customer's own HTTP API, and the
 * calls workflow `action` nodes make through them. `connector_calls` has the delivery shape
 * (`status`, `next_attempt_at`, `locked_by`/`locked_until`), so the queue gauges and the lease
 * guard work on it exactly as on webhook deliveries.
 */
export const connectors: Migration = {
  id: '0009_connectors',
  async up(trx) {
    await sql`
      create table connectors (
        connector_id text primary key,
        org_id text not null references orgs (org_id),
        environment text not null check (environment in ('test', 'live')),
        connector_key text not null,
        name text not null,
        base_url text not null,
        auth_type text not null check (auth_type in ('none', 'bearer', 'header', 'basic')),
        auth_header_name text,
        secret_box text,
        operations jsonb not null,
        version integer not null check (version > 0),
        created_at timestamptz not null,
        updated_at timestamptz not null,
        unique (org_id, environment, connector_key)
      )`.execute(trx);

    await sql`
      create table connector_calls (
        call_id text primary key,
        org_id text not null,
        environment text not null check (environment in ('test', 'live')),
        case_id text not null references cases (case_id),
        node_id text not null,
        connector_key text not null,
        operation_id text not null,
        request jsonb not null,
        status text not null check (status in ('pending', 'retry_scheduled', 'succeeded', 'failed')),
        attempt_count integer not null default 0,
        total_attempts integer not null default 0,
        next_attempt_at timestamptz,
        locked_by text,
        locked_until timestamptz,
        last_attempt_at timestamptz,
        last_status_code integer,
        last_duration_ms integer,
        last_error text,
        external_reference text,
        succeeded_at timestamptz,
        failed_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        unique (case_id, node_id),
        check ((status in ('pending', 'retry_scheduled')) = (next_attempt_at is not null))
      )`.execute(trx);
    // The claim takes the earliest due calls; the failed count is read at every scrape.
    await sql`create index connector_calls_due on connector_calls (next_attempt_at, call_id)
      where status in ('pending', 'retry_scheduled')`.execute(trx);
    await sql`create index connector_calls_failed on connector_calls (org_id) where status = 'failed'`.execute(trx);
  },
};
