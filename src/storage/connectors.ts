import type { Selectable } from 'kysely';
import type { Executor, Tx } from './schema.ts';
import { toJsonb } from './json.ts';
import type { ConnectorAuthType, ConnectorsTable } from './tables/connectors.ts';
import type { Tenant } from '../ports/tenant.ts';

export type ConnectorRow = Selectable<ConnectorsTable>;

export async function findConnector(db: Executor, scope: Tenant, connectorKey: string): Promise<ConnectorRow | undefined> {
  return db
    .selectFrom('connectors')
    .selectAll()
    .where('org_id', '=', scope.orgId)
    .where('environment', '=', scope.environment)
    .where('connector_key', '=', connectorKey)
    .executeTakeFirst();
}

/** The row under the caller's lock, so a replacement reads and bumps `version` without a race. */
export async function lockConnector(tx: Tx, scope: Tenant, connectorKey: string): Promise<ConnectorRow | undefined> {
  return tx
    .selectFrom('connectors')
    .selectAll()
    .where('org_id', '=', scope.orgId)
    .where('environment', '=', scope.environment)
    .where('connector_key', '=', connectorKey)
    .forUpdate()
    .executeTakeFirst();
}

export async function listConnectorRows(db: Executor, scope: Tenant): Promise<ConnectorRow[]> {
  return db
    .selectFrom('connectors')
    .selectAll()
    .where('org_id', '=', scope.orgId)
    .where('environment', '=', scope.environment)
    .orderBy('connector_key')
    .execute();
}

export interface ConnectorWrite {
  name: string;
  base_url: string;
  auth_type: ConnectorAuthType;
  auth_header_name: string | null;
  secret_box: string | null;
  operations: unknown[];
}

export async function insertConnector(
  tx: Executor,
  row: ConnectorWrite & Tenant & { connectorId: string; connectorKey: string; now: Date },
): Promise<ConnectorRow> {
  return tx
    .insertInto('connectors')
    .values({
      connector_id: row.connectorId,
      org_id: row.orgId,
      environment: row.environment,
      connector_key: row.connectorKey,
      name: row.name,
      base_url: row.base_url,
      auth_type: row.auth_type,
      auth_header_name: row.auth_header_name,
      secret_box: row.secret_box,
      operations: toJsonb(row.operations),
      version: 1,
      created_at: row.now,
      updated_at: row.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Replaces a connector's manifest and bumps its version; the id (and so the secret's binding) stays. */
export async function replaceConnector(tx: Executor, tenant: Tenant, connectorId: string, write: ConnectorWrite, now: Date): Promise<ConnectorRow> {
  return tx
    .updateTable('connectors')
    .set((eb) => ({
      name: write.name,
      base_url: write.base_url,
      auth_type: write.auth_type,
      auth_header_name: write.auth_header_name,
      secret_box: write.secret_box,
      operations: toJsonb(write.operations),
      version: eb('version', '+', 1),
      updated_at: now,
    }))
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('connector_id', '=', connectorId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteConnector(db: Executor, scope: Tenant, connectorKey: string): Promise<boolean> {
  const result = await db
    .deleteFrom('connectors')
    .where('org_id', '=', scope.orgId)
    .where('environment', '=', scope.environment)
    .where('connector_key', '=', connectorKey)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
