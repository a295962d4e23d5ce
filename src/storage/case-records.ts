import { sql } from 'kysely';
import { coalescedLookup } from './coalesced-reads.ts';
import type { Executor } from './schema.ts';
import type { Tenant } from '../ports/tenant.ts';

/** The case's current revision and, when one is stored, the rendered record and its revision. */
export interface StoredCaseRecord {
  revision: number;
  stored: { revision: number; format: string; body: string } | undefined;
}

type CaseRecordScope = Tenant & { caseId: string };
type CaseRecordRow = { case_id: string; org_id: string; environment: string; revision: string; stored_revision: string | null; format: string | null; body: string | null };

const lookUpCaseRecordRows = coalescedLookup<string, CaseRecordRow>(async (db, caseIds) => {
  const result = await sql<CaseRecordRow>`
    select c.case_id, c.org_id, c.environment, c.revision, r.revision as stored_revision, r.format, r.body
    from cases c left join case_records r on r.case_id = c.case_id
    where c.case_id = any(${caseIds}::text[])`.execute(db);
  return new Map(result.rows.map((row) => [row.case_id, row]));
}, (caseId) => caseId);

/**
 * The case's revision (moved by triggers on every change, migration 0015) and the rendered record
 * stored for some revision, if any. Concurrent lookups share one statement (coalesced-reads.ts).
 */
export async function findStoredCaseRecord(db: Executor, scope: CaseRecordScope): Promise<StoredCaseRecord | undefined> {
  const row = await lookUpCaseRecordRows(db, scope.caseId);
  // The workspace check is here rather than in SQL so that one statement serves every workspace.
  if (!row || row.org_id !== scope.orgId || row.environment !== scope.environment) return undefined;
  return {
    revision: Number(row.revision),
    stored:
      row.stored_revision !== null && row.body !== null && row.format !== null
        ? { revision: Number(row.stored_revision), format: row.format, body: row.body }
        : undefined,
  };
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
