import { sql } from 'kysely';
import type { Migration } from './index.ts';

export const operators: Migration = {
  id: '0007_operators',
  async up(trx) {
    // People who sign in to the dashboard. The sign-in form asks only for an email, so an email
    // names one operator across the deployment (case-insensitively).
    await sql`
      create table operators (
        operator_id text primary key,
        org_id text not null references orgs (org_id),
        email text not null,
        password_hash text not null,
        role text not null check (role in ('admin', 'reviewer')),
        disabled_at timestamptz,
        last_sign_in_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`.execute(trx);
    await sql`create unique index operators_email on operators (lower(email))`.execute(trx);
    await sql`create index operators_org on operators (org_id, created_at)`.execute(trx);

    // Server-side dashboard sessions: the cookie holds a random token, the table its SHA-256, so
    // a database dump signs nobody in. Revoked by setting revoked_at (sign-out, disabled operator).
    await sql`
      create table operator_sessions (
        session_id text primary key,
        token_hash text not null unique,
        operator_id text not null references operators (operator_id),
        org_id text not null,
        environment text not null check (environment in ('test', 'live')),
        created_at timestamptz not null,
        last_seen_at timestamptz not null,
        expires_at timestamptz not null,
        revoked_at timestamptz
      )`.execute(trx);
    await sql`create index operator_sessions_operator on operator_sessions (operator_id) where revoked_at is null`.execute(trx);

    // Failed sign-ins per account and per client address, in fixed windows. In the database
    // rather than the rate-limit store: a lock-out must hold across processes without Redis and
    // outlive the store's one-minute buckets.
    await sql`
      create table sign_in_failures (
        bucket text not null,
        window_start timestamptz not null,
        failures integer not null,
        primary key (bucket, window_start)
      )`.execute(trx);
  },
};
