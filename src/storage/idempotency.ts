import { sql, type Selectable } from 'kysely';
import { toJsonb } from './json.ts';
import { coalescedLookup } from './coalesced-reads.ts';
import type { Executor, Tx } from './schema.ts';
import type { IdempotencyRecordsTable } from './tables/cases.ts';
import type { Tenant } from '../ports/tenant.ts';

export type IdempotencyRow = Selectable<IdempotencyRecordsTable>;

export interface IdempotencyScope extends Tenant {
  operation: string;
  key: string;
}


/**
 * Claims a key for this transaction, in one statement: a new key is inserted, an expired record
 * (not yet swept) is taken over, a live one is left alone and the caller replays it. On
 * PostgreSQL a concurrent claim of the same key blocks on the primary key until the first
 * transaction ends: it then sees the committed record (and replays it) or, if the first rolled
 * back, claims the key itself. (Was a delete of the expired record plus an insert: one round trip
 * fewer per session creation.)
 */
export async function claimIdempotencyKey(tx: Tx, scope: IdempotencyScope, fingerprint: string, now: Date, expiresAt: Date): Promise<boolean> {
  const claimed = await claimIdempotencyKeyQuery(scope, fingerprint, now, expiresAt).execute(tx);
  return claimed.rows.length > 0;
}

/**
 * The claim as a statement to compose: session creation runs it as a CTE of its gate read
 * (storage/session-creation.ts). It returns one row when the key is this transaction's. Written as
 * text rather than built: it runs on every creation, and Kysely's building and compiling of the
 * creation's statements was 8 % of the server's CPU (bench/profile.ts).
 */
export function claimIdempotencyKeyQuery(scope: IdempotencyScope, fingerprint: string, now: Date, expiresAt: Date) {
  return sql<{ fingerprint: string }>`
    insert into idempotency_records (org_id, environment, operation, idempotency_key, fingerprint, response_status, response_body, created_at, expires_at)
    values (${scope.orgId}, ${scope.environment}, ${scope.operation}, ${scope.key}, ${fingerprint}, 0, '{}'::jsonb, ${now}::timestamptz, ${expiresAt}::timestamptz)
    on conflict (org_id, environment, operation, idempotency_key) do update
      set fingerprint = excluded.fingerprint, response_status = 0, response_body = excluded.response_body,
          created_at = excluded.created_at, expires_at = excluded.expires_at
      where idempotency_records.expires_at <= ${now}::timestamptz
    returning fingerprint`;
}

const scopeKey = (s: IdempotencyScope) => JSON.stringify([s.orgId, s.environment, s.operation, s.key]);

const lookUpIdempotencyRecords = coalescedLookup<IdempotencyScope, IdempotencyRow>(async (db, scopes) => {
  const result = await sql<IdempotencyRow>`
    select r.* from idempotency_records r
    join unnest(${scopes.map((s) => s.orgId)}::text[], ${scopes.map((s) => s.environment)}::text[],
                ${scopes.map((s) => s.operation)}::text[], ${scopes.map((s) => s.key)}::text[])
      as k(org_id, environment, operation, idempotency_key)
      on r.org_id = k.org_id and r.environment = k.environment and r.operation = k.operation and r.idempotency_key = k.idempotency_key`.execute(db);
  return new Map(
    result.rows.map((row) => [scopeKey({ orgId: row.org_id, environment: row.environment, operation: row.operation, key: row.idempotency_key }), row]),
  );
}, scopeKey);

/**
 * The record of a key that may have committed, read outside any transaction: the replay's one
 * read. Concurrent replays share one statement (coalesced-reads.ts).
 */
export function findCommittedIdempotencyRecord(db: Executor, scope: IdempotencyScope): Promise<IdempotencyRow | undefined> {
  return lookUpIdempotencyRecords(db, scope);
}

export async function findIdempotencyRecord(db: Executor, scope: IdempotencyScope): Promise<IdempotencyRow | undefined> {
  return db
    .selectFrom('idempotency_records')
    .selectAll()
    .where('org_id', '=', scope.orgId)
    .where('environment', '=', scope.environment)
    .where('operation', '=', scope.operation)
    .where('idempotency_key', '=', scope.key)
    .executeTakeFirst();
}

export async function completeIdempotencyRecord(tx: Tx, scope: IdempotencyScope, status: number, body: Record<string, unknown>): Promise<void> {
  await completeIdempotencyRecordQuery(scope, status, body).execute(tx);
}

/** The completion as a statement to compose: session creation runs it as a CTE of its one write. */
export function completeIdempotencyRecordQuery(scope: IdempotencyScope, status: number, body: Record<string, unknown>) {
  return sql`
    update idempotency_records set response_status = ${status}::int, response_body = ${toJsonb(body)}::jsonb
    where org_id = ${scope.orgId} and environment = ${scope.environment} and operation = ${scope.operation} and idempotency_key = ${scope.key}`;
}

/** Deletes up to `batch` expired records; the worker calls it until it returns less than `batch`. */
export async function deleteExpiredIdempotencyRecordsUnscoped(db: Executor, now: Date, batch: number): Promise<number> {
  const result = await sql`
    delete from idempotency_records
    where ctid in (select ctid from idempotency_records where expires_at <= ${now} limit ${batch})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
