import { sql } from 'kysely';
import type { Migration } from './index.ts';

export const webhooks: Migration = {
  id: '0003_webhooks',
  async up(trx) {
    await sql`
      create table webhook_endpoints (
        endpoint_id text primary key,
        org_id text not null references orgs (org_id),
        environment text not null check (environment in ('test', 'live')),
        url text not null,
        event_types text[] not null check (cardinality(event_types) > 0),
        enabled boolean not null default true,
        secret_box text not null,
        previous_secret_box text,
        previous_secret_expires_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        disabled_at timestamptz
      )`.execute(trx);
    await sql`create index webhook_endpoints_org_env on webhook_endpoints (org_id, environment)`.execute(trx);

    await sql`
      create table webhook_deliveries (
        delivery_id text primary key,
        org_id text not null,
        environment text not null check (environment in ('test', 'live')),
        endpoint_id text not null references webhook_endpoints (endpoint_id),
        event_id text not null,
        event_type text not null,
        case_id text,
        payload text not null,
        status text not null check (status in ('pending', 'retry_scheduled', 'delivered', 'failed')),
        attempt_count integer not null default 0,
        total_attempts integer not null default 0,
        next_attempt_at timestamptz,
        locked_by text,
        locked_until timestamptz,
        last_attempt_at timestamptz,
        last_status_code integer,
        last_error text,
        delivered_at timestamptz,
        failed_at timestamptz,
        acknowledged_at timestamptz,
        acknowledgement_id text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        check ((status in ('pending', 'retry_scheduled')) = (next_attempt_at is not null))
      )`.execute(trx);
    // The claim walks endpoints and takes each one's earliest due deliveries: this index serves it.
    await sql`create index webhook_deliveries_due on webhook_deliveries (endpoint_id, next_attempt_at, delivery_id)
      where status in ('pending', 'retry_scheduled')`.execute(trx);
    // The delivery log: newest first per workspace, optionally for one case.
    await sql`create index webhook_deliveries_log on webhook_deliveries (org_id, environment, created_at desc, delivery_id desc)`.execute(trx);
    await sql`create index webhook_deliveries_case on webhook_deliveries (case_id, created_at desc) where case_id is not null`.execute(trx);

    await sql`
      create table webhook_delivery_attempts (
        delivery_id text not null references webhook_deliveries (delivery_id),
        attempt_number integer not null,
        org_id text not null,
        environment text not null,
        attempted_at timestamptz not null,
        status_code integer,
        duration_ms integer not null,
        error text,
        response_excerpt text,
        primary key (delivery_id, attempt_number)
      )`.execute(trx);

    await sql`
      create table integration_notifications (
        notification_id text primary key,
        org_id text not null references orgs (org_id),
        environment text not null check (environment in ('test', 'live')),
        kind text not null check (kind in ('webhook_delivery_failed', 'webhook_no_endpoint')),
        message text not null,
        data jsonb not null default '{}',
        created_at timestamptz not null
      )`.execute(trx);
    await sql`create index integration_notifications_log on integration_notifications (org_id, environment, created_at desc, notification_id desc)`.execute(trx);
  },
};
