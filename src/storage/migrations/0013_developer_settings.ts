import { sql } from 'kysely';
import type { Migration } from './index.ts';

/**
 * Developer settings in the dashboard (issue 12): who accepted the legal terms, which integration
 * notifications have been read, and an index for each endpoint's recent deliveries (the endpoint
 * list shows the last 24 hours of delivery success, the endpoint page its own delivery log).
 */
export const developerSettings: Migration = {
  id: '0013_developer_settings',
  async up(trx) {
    await sql`alter table orgs add column legal_accepted_by text`.execute(trx);
    await sql`alter table integration_notifications add column read_at timestamptz`.execute(trx);
    await sql`create index if not exists integration_notifications_unread on integration_notifications (org_id, environment)
      where read_at is null`.execute(trx);
    await sql`create index if not exists webhook_deliveries_endpoint_log on webhook_deliveries (endpoint_id, created_at desc, delivery_id desc)`.execute(trx);
  },
};
