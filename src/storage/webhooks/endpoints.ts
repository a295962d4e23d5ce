import { sql, type Insertable, type Selectable } from 'kysely';
import type { Tenant } from '../../ports/tenant.ts';
import type { Executor } from '../schema.ts';
import type { WebhookEndpointsTable } from '../tables/webhooks.ts';

export type EndpointRow = Selectable<WebhookEndpointsTable>;

export async function insertEndpoint(db: Executor, row: Insertable<WebhookEndpointsTable>): Promise<EndpointRow> {
  return db.insertInto('webhook_endpoints').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function listEndpoints(db: Executor, tenant: Tenant): Promise<EndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .orderBy('created_at')
    .orderBy('endpoint_id')
    .execute();
}

export async function findEndpoint(db: Executor, tenant: Tenant, endpointId: string): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .executeTakeFirst();
}

/** By id alone: for the operator's CLI, which acts across workspaces. */
export async function findEndpointUnscoped(db: Executor, endpointId: string): Promise<EndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('endpoint_id', '=', endpointId).executeTakeFirst();
}

export async function disableEndpoint(db: Executor, tenant: Tenant, endpointId: string, now: Date): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ enabled: false, disabled_at: sql`coalesce(disabled_at, ${now})`, updated_at: now })
    .where('endpoint_id', '=', endpointId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .returningAll()
    .executeTakeFirst();
}

export async function enableEndpoint(db: Executor, tenant: Tenant, endpointId: string, now: Date): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ enabled: true, disabled_at: null, updated_at: now })
    .where('endpoint_id', '=', endpointId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .returningAll()
    .executeTakeFirst();
}

export async function replaceEndpointSecret(
  db: Executor,
  tenant: Tenant,
  endpointId: string,
  change: { secretBox: string; previousSecretBox: string; previousExpiresAt: Date; now: Date },
): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({
      secret_box: change.secretBox,
      previous_secret_box: change.previousSecretBox,
      previous_secret_expires_at: change.previousExpiresAt,
      updated_at: change.now,
    })
    .where('endpoint_id', '=', endpointId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .returningAll()
    .executeTakeFirst();
}

/** Enabled endpoints of the workspace that take `eventType`, by name or through `*`. */
export async function subscribedEndpointIds(db: Executor, tenant: Tenant, eventType: string): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select('endpoint_id')
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('enabled', '=', true)
    .where((eb) => eb.or([sql<boolean>`${eventType} = any(event_types)`, sql<boolean>`'*' = any(event_types)`]))
    .orderBy('created_at')
    .orderBy('endpoint_id')
    .execute();
  return rows.map((r) => r.endpoint_id);
}

export async function hasEnabledEndpoint(db: Executor, tenant: Tenant): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select('endpoint_id')
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('enabled', '=', true)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Endpoints with a box sealed before owners were bound (`v1.`), in every workspace, for re-sealing at start. */
export async function listLegacySealedEndpointsUnscoped(db: Executor): Promise<Pick<EndpointRow, 'endpoint_id' | 'secret_box' | 'previous_secret_box'>[]> {
  return db
    .selectFrom('webhook_endpoints')
    .select(['endpoint_id', 'secret_box', 'previous_secret_box'])
    .where((eb) => eb.or([eb('secret_box', 'like', 'v1.%'), eb('previous_secret_box', 'like', 'v1.%')]))
    .execute();
}

/** Swaps boxes only if they are still the ones read, so a rotation in between is never undone. */
export async function swapEndpointSecretBoxesUnscoped(
  db: Executor,
  endpointId: string,
  from: { secretBox: string; previousSecretBox: string | null },
  to: { secretBox: string; previousSecretBox: string | null },
): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ secret_box: to.secretBox, previous_secret_box: to.previousSecretBox })
    .where('endpoint_id', '=', endpointId)
    .where('secret_box', '=', from.secretBox)
    .where((eb) => (from.previousSecretBox === null ? eb('previous_secret_box', 'is', null) : eb('previous_secret_box', '=', from.previousSecretBox)))
    .execute();
}

/**
 * The workspace's listener of this name, made on first use and reused after: its endpoint id and
 * sealed secret stay, so `dossier listen` verifies with the same secret across restarts. Each
 * connect enables it again and takes the stream's subscription and `--forward-to` address. The
 * new row's id and box are used only when there is no listener yet.
 */
export async function upsertListenerEndpoint(
  db: Executor,
  tenant: Tenant,
  row: { endpointId: string; name: string; url: string; eventTypes: string[]; secretBox: string; now: Date },
): Promise<EndpointRow> {
  return db
    .insertInto('webhook_endpoints')
    .values({
      endpoint_id: row.endpointId,
      org_id: tenant.orgId,
      environment: tenant.environment,
      kind: 'listener',
      listener_name: row.name,
      url: row.url,
      event_types: row.eventTypes,
      enabled: true,
      secret_box: row.secretBox,
      created_at: row.now,
      updated_at: row.now,
    })
    .onConflict((oc) =>
      oc
        .columns(['org_id', 'environment', 'listener_name'])
        .where('kind', '=', 'listener')
        .doUpdateSet({ url: row.url, event_types: row.eventTypes, enabled: true, disabled_at: null, updated_at: row.now }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** While a stream is open it pushes this forward; the delivery worker leaves the listener's deliveries alone until it passes. */
export async function markListenerConnected(db: Executor, tenant: Tenant, endpointId: string, until: Date | null): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ listener_connected_until: until })
    .where('endpoint_id', '=', endpointId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('kind', '=', 'listener')
    .execute();
}
