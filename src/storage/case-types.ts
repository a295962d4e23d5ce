import type { Selectable } from 'kysely';
import type { Environment } from '../config.ts';
import { toJsonb } from './json.ts';
import type { Executor } from './schema.ts';
import type { CaseTypesTable, CaseTypeVersionsTable } from './tables/cases.ts';

export type CaseTypeRow = Selectable<CaseTypesTable>;
export type CaseTypeVersionRow = Selectable<CaseTypeVersionsTable>;

export async function findCaseType(db: Executor, orgId: string, environment: Environment, caseTypeId: string): Promise<CaseTypeRow | undefined> {
  return db
    .selectFrom('case_types')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('environment', '=', environment)
    .where('case_type_id', '=', caseTypeId)
    .executeTakeFirst();
}

export async function selectCaseTypes(db: Executor, orgId: string, environment: Environment): Promise<CaseTypeRow[]> {
  return db.selectFrom('case_types').selectAll().where('org_id', '=', orgId).where('environment', '=', environment).orderBy('case_type_id').execute();
}

export async function findCaseTypeVersion(
  db: Executor,
  orgId: string,
  environment: Environment,
  caseTypeId: string,
  workflowVersion: string,
): Promise<CaseTypeVersionRow | undefined> {
  return db
    .selectFrom('case_type_versions')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('environment', '=', environment)
    .where('case_type_id', '=', caseTypeId)
    .where('workflow_version', '=', workflowVersion)
    .executeTakeFirst();
}

export async function latestCaseTypeVersion(db: Executor, orgId: string, environment: Environment, caseTypeId: string): Promise<CaseTypeVersionRow | undefined> {
  return db
    .selectFrom('case_type_versions')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('environment', '=', environment)
    .where('case_type_id', '=', caseTypeId)
    .orderBy('version_number', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function upsertCaseType(
  db: Executor,
  row: Omit<CaseTypeRow, 'definition' | 'created_at' | 'updated_at'> & { definition: unknown; now: Date },
): Promise<void> {
  const { now, definition, ...rest } = row;
  await db
    .insertInto('case_types')
    .values({ ...rest, definition: toJsonb(definition), created_at: now, updated_at: now })
    .onConflict((oc) =>
      oc.columns(['org_id', 'environment', 'case_type_id']).doUpdateSet({
        name: rest.name,
        operating_mode: rest.operating_mode,
        workflow_id: rest.workflow_id,
        workflow_version: rest.workflow_version,
        definition: toJsonb(definition),
        updated_at: now,
      }),
    )
    .execute();
}

export async function insertCaseTypeVersion(db: Executor, row: Omit<CaseTypeVersionRow, 'definition'> & { definition: unknown }): Promise<void> {
  await db.insertInto('case_type_versions').values({ ...row, definition: toJsonb(row.definition) }).execute();
}
