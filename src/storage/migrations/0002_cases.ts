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
        -- per-rule outcomes of the latest gate evaluation (case engine)
        gate_results jsonb not null default '[]',
        case_status text check (case_status in ('approved', 'rejected', 'decision_ready', 'abandoned')),
        decision_reason text,
        completed_at timestamptz,
        handoff_state text check (handoff_state in ('dispatching', 'delivered', 'dispatch_failed', 'acknowledged')),
        handoff_delivery_id text,
        handoff_acknowledged_at timestamptz,
        last_event_cursor integer not null default 0,
        -- when runtime_status last changed: the queue's sort_timestamp
        status_changed_at timestamptz not null,
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

    await sql`
      create table documents (
        doc_id text primary key,
        case_id text not null references cases (case_id),
        org_id text not null,
        environment text not null,
        document_kind text,
        filename text,
        source text not null check (source in ('upload', 'url')),
        source_url text,
        status text not null check (status in ('uploaded', 'processing', 'processed', 'failed', 'erased')),
        failure_reason text,
        mime_type text,
        byte_size integer,
        sha256 text,
        page_count integer,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        erased_at timestamptz
      )`.execute(trx);
    await sql`create index documents_case on documents (case_id, created_at)`.execute(trx);

    // One row per fact of the case; value, quotes and evidence are document-derived and erasable.
    await sql`
      create table facts (
        case_id text not null references cases (case_id),
        fact_id text not null,
        org_id text not null,
        environment text not null,
        fact_label text not null,
        status text not null check (status in ('pending', 'resolved', 'needs_input', 'failed')),
        value text,
        candidate_id text,
        anchor_match_quality real,
        source text check (source in ('document_extraction', 'applicant_input', 'applicant_follow_up', 'prefill', 'operator')),
        reason_codes jsonb not null default '[]',
        provenance jsonb not null default '[]',
        evidence jsonb not null default '[]',
        verification_metadata jsonb not null default '[]',
        updated_at timestamptz not null,
        primary key (case_id, fact_id)
      )`.execute(trx);

    // Background work attached to a case (document processing, gate evaluation): shown as workspace.jobs.
    await sql`
      create table case_jobs (
        job_id text primary key,
        case_id text not null references cases (case_id),
        org_id text not null,
        environment text not null,
        kind text not null,
        status text not null check (status in ('queued', 'running', 'succeeded', 'failed')),
        subject_id text,
        attempts integer not null default 0,
        run_after timestamptz not null,
        locked_by text,
        locked_until timestamptz,
        last_error text,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`.execute(trx);
    await sql`create index case_jobs_due on case_jobs (run_after) where status in ('queued', 'running')`.execute(trx);
    await sql`create index case_jobs_case on case_jobs (case_id, created_at)`.execute(trx);

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
