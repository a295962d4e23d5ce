import { sql } from 'kysely';
import type { Migration } from './index.ts';

export const cases: Migration = {
  id: '0002_cases',
  async up(trx) {
    // The current definition of each case type; every workflow it ever had is in case_type_versions.
    await sql`
      create table case_types (
        org_id text not null references orgs (org_id),
        environment text not null check (environment in ('test', 'live')),
        case_type_id text not null,
        name text not null,
        operating_mode text not null check (operating_mode in ('system_of_action', 'system_of_record')),
        workflow_id text not null,
        workflow_version text not null,
        definition jsonb not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (org_id, environment, case_type_id)
      )`.execute(trx);

    await sql`
      create table case_type_versions (
        org_id text not null,
        environment text not null,
        case_type_id text not null,
        workflow_version text not null,
        version_number integer not null,
        definition_hash text not null,
        definition jsonb not null,
        created_at timestamptz not null,
        primary key (org_id, environment, case_type_id, workflow_version),
        foreign key (org_id, environment, case_type_id) references case_types (org_id, environment, case_type_id)
      )`.execute(trx);

    await sql`
      create table cases (
        case_id text primary key,
        org_id text not null references orgs (org_id),
        environment text not null check (environment in ('test', 'live')),
        case_type_id text not null,
        workflow_id text not null,
        workflow_version text not null,
        operating_mode text not null check (operating_mode in ('system_of_action', 'system_of_record')),
        runtime_status text not null check (runtime_status in
          ('intake_in_progress', 'processing', 'gate_ready', 'gate_evaluating', 'ready_for_review', 'complete')),
        origin text not null check (origin in ('session', 'process')),
        external_case_id text,
        external_applicant_id text,
        external_customer_id text,
        metadata jsonb not null default '{}',
        locale text,
        structured_inputs jsonb not null default '{}',
        prefill jsonb not null default '{}',
        current_node_id text,
        current_gate_id text,
        case_status text check (case_status in ('approved', 'rejected', 'decision_ready', 'abandoned')),
        decision_reason text,
        completed_at timestamptz,
        handoff_state text check (handoff_state in ('dispatching', 'delivered', 'dispatch_failed', 'acknowledged')),
        handoff_delivery_id text,
        handoff_acknowledged_at timestamptz,
        last_event_cursor integer not null default 0,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        foreign key (org_id, environment, case_type_id, workflow_version)
          references case_type_versions (org_id, environment, case_type_id, workflow_version)
      )`.execute(trx);
    await sql`create unique index cases_external_case_id on cases (org_id, environment, external_case_id)
      where external_case_id is not null`.execute(trx);
    await sql`create index cases_org_env_updated on cases (org_id, environment, updated_at)`.execute(trx);

    await sql`
      create table sessions (
        session_id uuid primary key,
        case_id text not null references cases (case_id),
        org_id text not null,
        environment text not null check (environment in ('test', 'live')),
        status text not null check (status in ('open', 'submitted', 'expired')),
        token_hash text not null,
        return_url text,
        locale text,
        expires_at timestamptz not null,
        submitted_at timestamptz,
        created_at timestamptz not null
      )`.execute(trx);
    await sql`create index sessions_case on sessions (case_id)`.execute(trx);
    await sql`create index sessions_open_expiry on sessions (expires_at) where status = 'open'`.execute(trx);

    // cursor is per case, gapless: assigned from cases.last_event_cursor under the case row lock.
    await sql`
      create table case_events (
        event_id text primary key,
        case_id text not null references cases (case_id),
        org_id text not null,
        environment text not null,
        cursor integer not null,
        event_type text not null,
        data jsonb not null default '{}',
        created_at timestamptz not null,
        unique (case_id, cursor)
      )`.execute(trx);

    await sql`
      create table idempotency_records (
        org_id text not null,
        environment text not null,
        operation text not null,
        idempotency_key text not null,
        fingerprint text not null,
        response_status integer not null,
        response_body jsonb not null,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        primary key (org_id, environment, operation, idempotency_key)
      )`.execute(trx);
    await sql`create index idempotency_records_expiry on idempotency_records (expires_at)`.execute(trx);

    // Usage per UTC month, counted in the transaction that creates the session: exact under concurrency.
    await sql`
      create table usage_counters (
        org_id text not null references orgs (org_id),
        environment text not null,
        period text not null,
        sessions_created integer not null default 0,
        primary key (org_id, environment, period)
      )`.execute(trx);
  },
};
