import { sql } from 'kysely';
import type { Migration } from './index.ts';

/**
 * `dossier listen` (issue 25): a listener is an endpoint of its own kind. The server never
 * connects to it: its deliveries are handed to the CLI over a server-sent-events stream, and the
 * CLI makes the POST on the developer's machine. `url` holds the CLI's `--forward-to` address,
 * for display only. One listener per workspace, environment and name, so its signing secret
 * survives restarts of `listen`. `listener_connected_until` is refreshed by the open stream; past
 * it, the delivery worker counts an attempt as failed ("no `dossier listen` connected").
 */
export const webhookListeners: Migration = {
  id: '0023_webhook_listeners',
  async up(trx) {
    await sql`alter table webhook_endpoints add column kind text not null default 'url' check (kind in ('url', 'listener'))`.execute(trx);
    await sql`alter table webhook_endpoints add column listener_name text`.execute(trx);
    await sql`alter table webhook_endpoints add column listener_connected_until timestamptz`.execute(trx);
    await sql`alter table webhook_endpoints add constraint webhook_endpoints_listener_named check ((kind = 'listener') = (listener_name is not null))`.execute(trx);
    await sql`create unique index webhook_endpoints_listener on webhook_endpoints (org_id, environment, listener_name) where kind = 'listener'`.execute(trx);
  },
};
