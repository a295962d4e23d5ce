import type { Deps } from '../deps.ts';
import {
  deleteConnector as deleteConnectorRow,
  findConnector,
  insertConnector,
  listConnectorRows,
  lockConnector,
  replaceConnector,
  type ConnectorRow,
  type ConnectorWrite,
} from '../../storage/connectors.ts';
import { inTransaction, lockTransactionKey } from '../../storage/unit-of-work.ts';
import { open, seal } from '../crypto/secret-box.ts';
import { fail, ok, type Failure, type Result } from '../errors.ts';
import { describeProblems, parseConnectorManifest, type ConnectorOperation, type ValidManifest } from './manifest.ts';
import type { Tenant } from '../../ports/tenant.ts';

export type ConnectorDeps = Pick<Deps, 'db' | 'clock' | 'ids' | 'config'> & { secret: string };

/** What every read answers: the manifest without its secret, plus `secret_set`. */
export interface ConnectorView {
  connector_key: string;
  name: string;
  base_url: string;
  auth: { type: ValidManifest['auth']['type']; header_name?: string; secret_set: boolean };
  operations: ConnectorOperation[];
  version: number;
  created_at: string;
  updated_at: string;
}

/** Bound to the connector row: a box copied onto another connector does not open. */
function secretPurpose(connectorId: string): string {
  return `connector-secret:${connectorId}`;
}

export function toConnectorView(row: ConnectorRow): ConnectorView {
  return {
    connector_key: row.connector_key,
    name: row.name,
    base_url: row.base_url,
    auth: { type: row.auth_type, ...(row.auth_header_name ? { header_name: row.auth_header_name } : {}), secret_set: row.secret_box !== null },
    operations: row.operations as ConnectorOperation[],
    version: row.version,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The connector's auth secret in the clear, for an outbound call only. */
export function openConnectorSecret(secret: string, row: Pick<ConnectorRow, 'connector_id' | 'secret_box'>): string | null {
  if (row.secret_box === null) return null;
  const plain = open(secret, { purpose: secretPurpose(row.connector_id), owner: row.connector_id }, row.secret_box);
  if (plain === undefined) throw new Error('connector secret cannot be opened: was DOSSIER_SECRET changed?');
  return plain;
}

export function connectorNotFound(connectorKey: string): Failure {
  return fail('not_found', `No connector "${connectorKey}" in this workspace.`);
}

/** Validates a manifest with the catalog's codes: `missing_connector_key` or `invalid_connector_payload` listing every problem. */
export function validateManifest(deps: Pick<Deps, 'config'>, body: unknown): Result<ValidManifest> {
  const parsed = parseConnectorManifest(body, { allowPrivateNetwork: deps.config.allowPrivateNetwork });
  if (parsed.ok) return ok(parsed.value);
  if (parsed.missingKey) return fail('missing_connector_key', 'connector_key is required.');
  return fail('invalid_connector_payload', describeProblems('The connector manifest', parsed.problems));
}

/**
 * Creates or replaces the connector under the manifest's key. A replacement bumps `version`; one
 * that sends no secret for the same auth type keeps the stored one, so a manifest read with GET
 * (which never shows the secret) can be PUT back unchanged. A connector may be stored without
 * its secret (`secret_set: false`: an OpenAPI import maps the scheme, the secret comes later);
 * its calls fail until one is given.
 */
export async function putConnector(
  deps: ConnectorDeps,
  input: Tenant & { manifest: ValidManifest },
): Promise<Result<{ connector: ConnectorView; created: boolean }>> {
  const m = input.manifest;
  const now = deps.clock.now();
  return inTransaction(deps.db, async (tx) => {
    // Serialises concurrent puts of one key: the second waits and then replaces (version 2), never a unique violation.
    await lockTransactionKey(tx, `connector:${input.orgId}:${input.environment}:${m.connector_key}`);
    const existing = await lockConnector(tx, input, m.connector_key);
    const needsSecret = m.auth.type !== 'none';
    const connectorId = existing?.connector_id ?? deps.ids.next('con');
    let secretBox: string | null = null;
    if (needsSecret) {
      if (m.auth.secret !== undefined) secretBox = seal(deps.secret, { purpose: secretPurpose(connectorId), owner: connectorId }, m.auth.secret);
      else if (existing && existing.auth_type === m.auth.type) secretBox = existing.secret_box;
    }
    const write: ConnectorWrite = {
      name: m.name,
      base_url: m.base_url,
      auth_type: m.auth.type,
      auth_header_name: m.auth.header_name ?? null,
      secret_box: secretBox,
      operations: m.operations,
    };
    const row = existing
      ? await replaceConnector(tx, input, existing.connector_id, write, now)
      : await insertConnector(tx, { ...write, orgId: input.orgId, environment: input.environment, connectorId, connectorKey: m.connector_key, now });
    return ok({ connector: toConnectorView(row), created: !existing });
  });
}

export async function getConnector(deps: Pick<Deps, 'db'>, input: Tenant & { connectorKey: string }): Promise<Result<ConnectorView>> {
  const row = await findConnector(deps.db, input, input.connectorKey);
  return row ? ok(toConnectorView(row)) : connectorNotFound(input.connectorKey);
}

export async function listConnectors(deps: Pick<Deps, 'db'>, input: Tenant): Promise<ConnectorView[]> {
  return (await listConnectorRows(deps.db, input)).map(toConnectorView);
}

/** Calls already queued keep their rendered request but fail their attempts once the connector is gone. */
export async function removeConnector(deps: Pick<Deps, 'db'>, input: Tenant & { connectorKey: string }): Promise<Result<{ connector_key: string; deleted: true }>> {
  const deleted = await deleteConnectorRow(deps.db, input, input.connectorKey);
  return deleted ? ok({ connector_key: input.connectorKey, deleted: true }) : connectorNotFound(input.connectorKey);
}
