import type { ConnectorCallRow } from './connector-calls.ts';
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor, Tx } from './schema.ts';
import type { Tenant } from '../ports/tenant.ts';
import type { CaseJobsTable, CasesTable, DocumentsTable, FactsTable, SessionsTable } from './tables/cases.ts';

export type CaseRow = Selectable<CasesTable>;
export type NewCaseRow = Insertable<CasesTable>;
export type SessionRow = Selectable<SessionsTable>;
export type FactRow = Selectable<FactsTable>;
export type NewFactRow = Insertable<FactsTable>;
export type NewSessionRow = Insertable<SessionsTable>;
export type DocumentRow = Selectable<DocumentsTable>;
export type CaseJobRow = Selectable<CaseJobsTable>;

export async function insertCase(tx: Tx, row: NewCaseRow): Promise<CaseRow> {
  return tx.insertInto('cases').values(row).returningAll().executeTakeFirstOrThrow();
}

/** A case by id alone, for deployment-wide callers (the demo workspace's setup). */
export async function findCaseByIdUnscoped(db: Executor, caseId: string): Promise<CaseRow | undefined> {
  return db.selectFrom('cases').selectAll().where('case_id', '=', caseId).executeTakeFirst();
}

/** A case as its workspace sees it: another org's or environment's case does not exist. */
export async function findCase(db: Executor, tenant: Tenant, caseId: string): Promise<CaseRow | undefined> {
  return db
    .selectFrom('cases')
    .selectAll()
    .where('case_id', '=', caseId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .executeTakeFirst();
}

export async function externalCaseIdTaken(db: Executor, tenant: Tenant, externalCaseId: string): Promise<boolean> {
  const row = await db
    .selectFrom('cases')
    .select('case_id')
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('external_case_id', '=', externalCaseId)
    .executeTakeFirst();
  return row !== undefined;
}

export interface CaseSnapshot {
  row: CaseRow;
  facts: FactRow[];
  documents: DocumentRow[];
  jobs: CaseJobRow[];
  session: SessionRow | undefined;
  /** The case's workflow action calls (connector_calls), oldest first. */
  calls: ConnectorCallRow[];
  /** `cases.revision` in the same statement as the rows: the revision this state renders as. */
  revision: number;
}

const toDate = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));

/**
 * The case and everything shown with it in one round trip: the case read is the hottest query,
 * and five sequential or pooled queries cost several times one. Another workspace's case is undefined.
 */
export async function findCaseSnapshot(db: Executor, tenant: Tenant, caseId: string): Promise<CaseSnapshot | undefined> {
  return readCaseSnapshot(db, caseId, tenant);
}

/** The same snapshot by case id alone, for deployment-wide callers (workers holding a claimed job's case id). */
export async function findCaseSnapshotUnscoped(db: Executor, caseId: string): Promise<CaseSnapshot | undefined> {
  return readCaseSnapshot(db, caseId, null);
}

async function readCaseSnapshot(db: Executor, caseId: string, scope: Tenant | null): Promise<CaseSnapshot | undefined> {
  const result = await sql<CaseRow & { x_facts: unknown[]; x_documents: unknown[]; x_jobs: unknown[]; x_session: unknown; x_calls: unknown[] }>`
    select c.*,
      coalesce((select json_agg(f) from facts f where f.case_id = c.case_id), '[]'::json) as x_facts,
      coalesce((select json_agg(d order by d.created_at, d.doc_id) from documents d where d.case_id = c.case_id), '[]'::json) as x_documents,
      coalesce((select json_agg(j order by j.created_at, j.job_id) from case_jobs j where j.case_id = c.case_id), '[]'::json) as x_jobs,
      (select row_to_json(s) from sessions s where s.case_id = c.case_id order by s.created_at desc limit 1) as x_session,
      coalesce((select json_agg(k order by k.created_at, k.call_id) from connector_calls k where k.case_id = c.case_id), '[]'::json) as x_calls
    from cases c
    where c.case_id = ${caseId}
      ${scope ? sql`and c.org_id = ${scope.orgId} and c.environment = ${scope.environment}` : sql``}`.execute(db);
  const found = result.rows[0];
  if (!found) return undefined;
  // search_text (migration 0028) is the queue search's, not part of a case's row.
  const { x_facts, x_documents, x_jobs, x_session, x_calls, revision, search_text: _searchText, ...row } = found as typeof found & { revision: string; search_text?: string };
  const facts = (x_facts as Record<string, unknown>[]).map((f) => ({ ...f, updated_at: toDate(f.updated_at) }) as FactRow);
  const documents = (x_documents as Record<string, unknown>[]).map(
    (d) => ({ ...d, created_at: toDate(d.created_at), updated_at: toDate(d.updated_at), erased_at: toDate(d.erased_at) }) as DocumentRow,
  );
  const jobs = (x_jobs as Record<string, unknown>[]).map(
    (j) => ({ ...j, run_after: toDate(j.run_after), locked_until: toDate(j.locked_until), created_at: toDate(j.created_at), updated_at: toDate(j.updated_at) }) as CaseJobRow,
  );
  const s = x_session as Record<string, unknown> | null;
  const session = s
    ? ({ ...s, expires_at: toDate(s.expires_at), submitted_at: toDate(s.submitted_at), created_at: toDate(s.created_at) } as SessionRow)
    : undefined;
  const callDates = ['next_attempt_at', 'locked_until', 'last_attempt_at', 'succeeded_at', 'failed_at', 'created_at', 'updated_at'] as const;
  const calls = (x_calls as Record<string, unknown>[]).map(
    (k) => ({ ...k, ...Object.fromEntries(callDates.map((name) => [name, toDate(k[name])])) }) as ConnectorCallRow,
  );
  return { row: row as CaseRow, facts, documents, jobs, session, calls, revision: Number(revision) };
}

/**
 * The session row, locked for the rest of the transaction (applicant writes serialise on it). By
 * id alone because this is the applicant's proof check: authorizeApplicant compares the row's token
 * hash before anything else is read, and the row then names the workspace.
 */
export async function lockSession(tx: Tx, sessionId: string): Promise<SessionRow | undefined> {
  return tx.selectFrom('sessions').selectAll().where('session_id', '=', sessionId).forUpdate().executeTakeFirst();
}

/**
 * Locks a session of the workspace for the rest of the transaction (the integrator's
 * `POST /sessions/{id}/expire`); another workspace's session is undefined.
 */
export async function lockWorkspaceSession(tx: Tx, tenant: Tenant, sessionId: string): Promise<SessionRow | undefined> {
  return tx
    .selectFrom('sessions')
    .selectAll()
    .where('session_id', '=', sessionId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .forUpdate()
    .executeTakeFirst();
}

/** Locks a session by id alone, for the expiry sweep holding an id it selected deployment-wide. */
export async function lockSessionUnscoped(tx: Tx, sessionId: string): Promise<SessionRow | undefined> {
  return tx.selectFrom('sessions').selectAll().where('session_id', '=', sessionId).forUpdate().executeTakeFirst();
}

/** Locks a case row of the workspace for the rest of the transaction; another workspace's case is undefined. */
export async function lockCase(tx: Tx, tenant: Tenant, caseId: string): Promise<CaseRow | undefined> {
  return tx
    .selectFrom('cases')
    .selectAll()
    .where('case_id', '=', caseId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .forUpdate()
    .executeTakeFirst();
}

/** Locks a case row by id alone, for workers holding a claimed job's case id. */
export async function lockCaseUnscoped(tx: Tx, caseId: string): Promise<CaseRow | undefined> {
  return tx.selectFrom('cases').selectAll().where('case_id', '=', caseId).forUpdate().executeTakeFirst();
}

export async function updateCaseRow(tx: Tx, tenant: Tenant, caseId: string, changes: Updateable<CasesTable>): Promise<void> {
  await tx
    .updateTable('cases')
    .set(changes)
    .where('case_id', '=', caseId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .execute();
}

/**
 * Changes a case only if its runtime_status is still `expected` (the guard of a transition);
 * undefined when it was not.
 */
export async function updateCaseIfStatus(
  tx: Tx,
  tenant: Tenant,
  caseId: string,
  expected: CaseRow['runtime_status'],
  changes: Updateable<CasesTable>,
): Promise<CaseRow | undefined> {
  return tx
    .updateTable('cases')
    .set(changes)
    .where('case_id', '=', caseId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('runtime_status', '=', expected)
    .returningAll()
    .executeTakeFirst();
}

/** The newest session of a case (a case has one today; the newest wins if that changes). */
export async function findLatestSession(db: Executor, tenant: Tenant, caseId: string): Promise<SessionRow | undefined> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('case_id', '=', caseId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function updateSessionRow(tx: Tx, tenant: Tenant, sessionId: string, changes: Updateable<SessionsTable>): Promise<void> {
  await tx
    .updateTable('sessions')
    .set(changes)
    .where('session_id', '=', sessionId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .execute();
}

/** Open sessions whose time ran out, oldest first, in every workspace. */
export async function selectExpiredOpenSessionsUnscoped(db: Executor, now: Date, limit: number): Promise<{ session_id: string; case_id: string }[]> {
  return db.selectFrom('sessions').select(['session_id', 'case_id']).where('status', '=', 'open').where('expires_at', '<=', now).orderBy('expires_at').limit(limit).execute();
}

/** Submitted sessions that expired while their case still waits on the applicant (open follow-ups). */
export async function selectExpiredSessionsAwaitingFollowUpUnscoped(db: Executor, now: Date, limit: number): Promise<{ session_id: string; case_id: string }[]> {
  return db
    .selectFrom('sessions')
    .innerJoin('cases', 'cases.case_id', 'sessions.case_id')
    .select(['sessions.session_id', 'sessions.case_id'])
    .where('sessions.status', '=', 'submitted')
    .where('sessions.expires_at', '<=', now)
    .where('cases.runtime_status', '=', 'intake_in_progress')
    .limit(limit)
    .execute();
}
