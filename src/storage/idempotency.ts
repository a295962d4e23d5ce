import { sql, type Selectable } from 'kysely';
import type { Environment } from '../config.ts';
import { toJsonb } from './json.ts';
import { coalescedLookup } from './coalesced-reads.ts';
import type { Executor, Tx } from './schema.ts';
import type { IdempotencyRecordsTable } from './tables/cases.ts';

export type IdempotencyRow = Selectable<IdempotencyRecordsTable>;

export interface IdempotencyScope {
  orgId: string;
  environment: Environment;
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
  const claimed = await claimIdempotencyKeyQuery(tx, scope, fingerprint, now, expiresAt).executeTakeFirst();
  return claimed !== undefined;
}

/**
 * The claim as a statement to compose: session creation runs it as a CTE of its gate read
 * (storage/session-creation.ts). It returns one row when the key is this transaction's.
 */
export function claimIdempotencyKeyQuery(tx: Tx, scope: IdempotencyScope, fingerprint: string, now: Date, expiresAt: Date) {
  return tx
    .insertInto('idempotency_records')
    .values({
      org_id: scope.orgId,
      environment: scope.environment,
      operation: scope.operation,
      idempotency_key: scope.key,
      fingerprint,
      response_status: 0,
      response_body: toJsonb({}),
      created_at: now,
      expires_at: expiresAt,
    })
    .onConflict((oc) =>
      oc
        .columns(['org_id', 'environment', 'operation', 'idempotency_key'])
        .doUpdateSet((eb) => ({
          fingerprint: eb.ref('excluded.fingerprint'),
          response_status: 0,
          response_body: eb.ref('excluded.response_body'),
          created_at: eb.ref('excluded.created_at'),
          expires_at: eb.ref('excluded.expires_at'),
        }))
        .where('idempotency_records.expires_at', '<=', now),
    )
    .returning('fingerprint');
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
  await completeIdempotencyRecordQuery(tx, scope, status, body).execute();
}

/** The completion as a statement to compose: session creation runs it as a CTE of its one write. */
export function completeIdempotencyRecordQuery(tx: Tx, scope: IdempotencyScope, status: number, body: Record<string, unknown>) {
  return tx
    .updateTable('idempotency_records')
    .set({ response_status: status, response_body: toJsonb(body) })
    .where('org_id', '=', scope.orgId)
    .where('environment', '=', scope.environment)
    .where('operation', '=', scope.operation)
    .where('idempotency_key', '=', scope.key);
}

/** Deletes up to `batch` expired records; the worker calls it until it returns less than `batch`. */
export async function deleteExpiredIdempotencyRecords(db: Executor, now: Date, batch: number): Promise<number> {
  const result = await sql`
    delete from idempotency_records
    where ctid in (select ctid from idempotency_records where expires_at <= ${now} limit ${batch})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
