import type { Insertable, Selectable } from 'kysely';
import type { Environment } from '../config.ts';
import type { Executor, Tx } from './schema.ts';
import type { CaseJobsTable, CasesTable, DocumentsTable, FactsTable, SessionsTable } from './tables/cases.ts';

export type CaseRow = Selectable<CasesTable>;
export type NewCaseRow = Insertable<CasesTable>;
export type SessionRow = Selectable<SessionsTable>;
export type FactRow = Selectable<FactsTable>;
export type DocumentRow = Selectable<DocumentsTable>;
export type CaseJobRow = Selectable<CaseJobsTable>;

export async function insertCase(tx: Tx, row: NewCaseRow): Promise<CaseRow> {
  return tx.insertInto('cases').values(row).returningAll().executeTakeFirstOrThrow();
}

/** A case as its workspace sees it: another org's or environment's case does not exist. */
export async function findCase(db: Executor, orgId: string, environment: Environment, caseId: string): Promise<CaseRow | undefined> {
  return db
    .selectFrom('cases')
    .selectAll()
    .where('case_id', '=', caseId)
    .where('org_id', '=', orgId)
    .where('environment', '=', environment)
    .executeTakeFirst();
}

/** Reads and locks the case row for the rest of the transaction: transitions are serialised per case. */
export async function lockCase(tx: Tx, orgId: string, environment: Environment, caseId: string): Promise<CaseRow | undefined> {
  return tx
    .selectFrom('cases')
    .selectAll()
    .where('case_id', '=', caseId)
    .where('org_id', '=', orgId)
    .where('environment', '=', environment)
    .forUpdate()
    .executeTakeFirst();
}

export async function externalCaseIdTaken(db: Executor, orgId: string, environment: Environment, externalCaseId: string): Promise<boolean> {
  const row = await db
    .selectFrom('cases')
    .select('case_id')
    .where('org_id', '=', orgId)
    .where('environment', '=', environment)
    .where('external_case_id', '=', externalCaseId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertSession(tx: Tx, row: Insertable<SessionsTable>): Promise<SessionRow> {
  return tx.insertInto('sessions').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function latestSessionOfCase(db: Executor, caseId: string): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('case_id', '=', caseId).orderBy('created_at', 'desc').limit(1).executeTakeFirst();
}

export async function insertFacts(tx: Tx, rows: Insertable<FactsTable>[]): Promise<void> {
  if (rows.length > 0) await tx.insertInto('facts').values(rows).execute();
}

export async function listFacts(db: Executor, caseId: string): Promise<FactRow[]> {
  return db.selectFrom('facts').selectAll().where('case_id', '=', caseId).execute();
}

export async function listDocuments(db: Executor, caseId: string): Promise<DocumentRow[]> {
  return db.selectFrom('documents').selectAll().where('case_id', '=', caseId).orderBy('created_at').orderBy('doc_id').execute();
}

export async function listCaseJobs(db: Executor, caseId: string): Promise<CaseJobRow[]> {
  return db.selectFrom('case_jobs').selectAll().where('case_id', '=', caseId).orderBy('created_at').orderBy('job_id').execute();
}

/** Only for links that already prove their case (signed tokens): every API read goes through `findCase`. */
export async function findCaseBySignedLink(db: Executor, caseId: string): Promise<CaseRow | undefined> {
  return db.selectFrom('cases').selectAll().where('case_id', '=', caseId).executeTakeFirst();
}
