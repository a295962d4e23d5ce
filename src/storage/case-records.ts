import { sql } from 'kysely';
import type { Environment } from '../config.ts';
import type { Executor } from './schema.ts';

/** The case's current revision and, when one is stored, the rendered record and its revision. */
export interface StoredCaseRecord {
  revision: number;
  stored: { revision: number; format: string; body: string } | undefined;
}

interface PendingLookup {
  scope: { orgId: string; environment: Environment; caseId: string };
  resolve(found: StoredCaseRecord | undefined): void;
  reject(err: unknown): void;
}

/** Lookups waiting for the next turn of the event loop, per database handle. */
const pendingLookups = new WeakMap<Executor, PendingLookup[]>();

/**
 * The case's revision (moved by triggers on every change, migration 0015) and the rendered record
 * stored for some revision, if any.
 *
 * Concurrent lookups share one statement: each call waits for the end of the current turn of the
 * event loop, and every lookup queued by then is answered by one `case_id = any(...)` read. A
 * profile of the case read under 32 connections put a third of the server's time in the socket
 * writes of the database round trip, so fewer round trips is what moves it (issue 16). Every
 * lookup's statement still starts after its request arrived, so a read that follows a committed
 * change sees it, as with a statement of its own.
 */
export function findStoredCaseRecord(
  db: Executor,
  scope: { orgId: string; environment: Environment; caseId: string },
): Promise<StoredCaseRecord | undefined> {
  return new Promise((resolve, reject) => {
    let pending = pendingLookups.get(db);
    if (!pending) {
      pending = [];
      pendingLookups.set(db, pending);
      setImmediate(() => void lookUpStoredCaseRecords(db));
    }
    pending.push({ scope, resolve, reject });
  });
}

async function lookUpStoredCaseRecords(db: Executor): Promise<void> {
  const pending = pendingLookups.get(db) ?? [];
  pendingLookups.delete(db);
  try {
    const caseIds = [...new Set(pending.map((p) => p.scope.caseId))];
    const result = await sql<{ case_id: string; org_id: string; environment: string; revision: string; stored_revision: string | null; format: string | null; body: string | null }>`
      select c.case_id, c.org_id, c.environment, c.revision, r.revision as stored_revision, r.format, r.body
      from cases c left join case_records r on r.case_id = c.case_id
      where c.case_id = any(${caseIds}::text[])`.execute(db);
    const byId = new Map(result.rows.map((row) => [row.case_id, row]));
    for (const { scope, resolve } of pending) {
      const row = byId.get(scope.caseId);
      // The workspace check is here rather than in SQL so that one statement serves every workspace.
      if (!row || row.org_id !== scope.orgId || row.environment !== scope.environment) {
        resolve(undefined);
        continue;
      }
      resolve({
        revision: Number(row.revision),
        stored:
          row.stored_revision !== null && row.body !== null && row.format !== null
            ? { revision: Number(row.stored_revision), format: row.format, body: row.body }
            : undefined,
      });
    }
  } catch (err) {
    for (const { reject } of pending) reject(err);
  }
}

/**
 * Stores a record rendered at `revision` by code `format`. Never moves backwards: a slow reader
 * that rendered an older state cannot overwrite a newer record.
 */
export async function storeCaseRecord(db: Executor, input: { caseId: string; revision: number; format: string; body: string }): Promise<void> {
  await sql`
    insert into case_records (case_id, revision, format, body) values (${input.caseId}, ${input.revision}, ${input.format}, ${input.body})
    on conflict (case_id) do update set revision = excluded.revision, format = excluded.format, body = excluded.body
    where case_records.revision < excluded.revision
       or (case_records.revision = excluded.revision and case_records.format <> excluded.format)`.execute(db);
}
