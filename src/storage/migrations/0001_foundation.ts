import { sql } from 'kysely';
import type { Migration } from './index.ts';

export const foundation: Migration = {
  id: '0001_foundation',
  async up(trx) {
    await sql`
      create table settings (
        name text primary key,
        value text not null,
        updated_at timestamptz not null default now()
      )`.execute(trx);

    await sql`
      create table orgs (
        org_id text primary key,
        name text not null check (length(name) between 1 and 200),
        billing_status text not null default 'inactive' check (billing_status in ('active', 'inactive')),
        legal_terms_version text,
        legal_accepted_at timestamptz,
        live_usage_cap integer check (live_usage_cap >= 0),
        created_at timestamptz not null,
        updated_at timestamptz not null,
        check ((legal_terms_version is null) = (legal_accepted_at is null))
      )`.execute(trx);

    await sql`
      create table api_keys (
        key_id text primary key,
        org_id text not null references orgs (org_id),
        environment text not null check (environment in ('test', 'live')),
        name text,
        key_hash text not null unique,
        key_hint text not null,
        scopes text[] not null,
        rate_limit_per_minute integer check (rate_limit_per_minute > 0),
        expires_at timestamptz,
        revoked_at timestamptz,
        last_used_at timestamptz,
        created_at timestamptz not null
      )`.execute(trx);
    await sql`create index api_keys_org_env on api_keys (org_id, environment)`.execute(trx);
  },
};
