import { sql } from 'kysely';
import type { Environment } from '../config.ts';
import type { ApiKeyRow, Executor, NewApiKeyRow } from './schema.ts';

export async function insertApiKey(db: Executor, row: NewApiKeyRow): Promise<ApiKeyRow> {
  return db.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The key-authentication lookup: keyed by the hash of the secret the caller holds, which names its workspace. */
export async function findApiKeyByHash(db: Executor, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
}

/**
 * Keys are managed per organisation: the dashboard's keys page lists and revokes both
 * environments' keys, so these functions take the organisation rather than a Tenant.
 */
export async function findApiKey(db: Executor, orgId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('org_id', '=', orgId).where('key_id', '=', keyId).executeTakeFirst();
}

/** A key by id alone, for the deployment's operator (the CLI) and the demo workspace's setup. */
export async function findApiKeyUnscoped(db: Executor, keyId: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('key_id', '=', keyId).executeTakeFirst();
}

/** Revokes once: a second revocation keeps the original time. */
export async function markApiKeyRevoked(db: Executor, orgId: string, keyId: string, at: Date): Promise<ApiKeyRow | undefined> {
  await db.updateTable('api_keys').set({ revoked_at: at }).where('org_id', '=', orgId).where('key_id', '=', keyId).where('revoked_at', 'is', null).execute();
  return findApiKey(db, orgId, keyId);
}

export async function touchApiKeyLastUsed(db: Executor, orgId: string, keyId: string, at: Date): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('org_id', '=', orgId).where('key_id', '=', keyId).execute();
}

/** The workspace's keys (of one environment when given), newest first (revoked ones included: the list says so). */
export async function listApiKeysOfOrg(db: Executor, orgId: string, environment?: Environment): Promise<ApiKeyRow[]> {
  let q = db.selectFrom('api_keys').selectAll().where('org_id', '=', orgId);
  if (environment) q = q.where('environment', '=', environment);
  return q
    .orderBy('created_at', 'desc')
    .orderBy('key_id', 'desc')
    .execute();
}

/**
 * The first 16 hex characters of the hash of every key, in every workspace, that was live at
 * `now` and created at or after `since`: the process's set of known-good keys
 * (domain/keys/known-keys.ts). Deployment-wide on purpose: it answers "is this a live key at
 * all" before any workspace is known.
 */
export async function listLiveApiKeyHashPrefixesUnscoped(db: Executor, since: Date, now: Date): Promise<string[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(sql<string>`substr(key_hash, 1, 16)`.as('prefix'))
    .where('created_at', '>=', since)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .execute();
  return rows.map((r) => r.prefix);
}
