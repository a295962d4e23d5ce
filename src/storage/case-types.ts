import type { Selectable } from 'kysely';
import { toJsonb } from './json.ts';
import type { Executor } from './schema.ts';
import type { CaseTypesTable, CaseTypeVersionsTable } from './tables/cases.ts';
import type { Tenant } from '../ports/tenant.ts';

export type CaseTypeRow = Selectable<CaseTypesTable>;
export type CaseTypeVersionRow = Selectable<CaseTypeVersionsTable>;

export async function findCaseType(db: Executor, tenant: Tenant, caseTypeId: string): Promise<CaseTypeRow | undefined> {
  return db
    .selectFrom('case_types')
    .selectAll()
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('case_type_id', '=', caseTypeId)
    .executeTakeFirst();
}

export async function selectCaseTypes(db: Executor, tenant: Tenant): Promise<CaseTypeRow[]> {
  return db
    .selectFrom('case_types')
    .selectAll()
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .orderBy('case_type_id')
    .execute();
}

export async function findCaseTypeVersion(
  db: Executor,
  tenant: Tenant,
  caseTypeId: string,
  workflowVersion: string,
): Promise<CaseTypeVersionRow | undefined> {
  return db
    .selectFrom('case_type_versions')
    .selectAll()
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('case_type_id', '=', caseTypeId)
    .where('workflow_version', '=', workflowVersion)
    .executeTakeFirst();
}

export async function latestCaseTypeVersion(db: Executor, tenant: Tenant, caseTypeId: string): Promise<CaseTypeVersionRow | undefined> {
  return db
    .selectFrom('case_type_versions')
    .selectAll()
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
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

/** Every workflow version of the workspace's case types, with how many cases are pinned to each. */
export async function listCaseTypeVersionsWithCaseCounts(
  db: Executor,
  tenant: Tenant,
): Promise<{ case_type_id: string; workflow_version: string; version_number: number; created_at: Date; cases: number }[]> {
  const rows = await db
    .selectFrom('case_type_versions as v')
    .leftJoin('cases as c', (join) =>
      join
        .onRef('c.org_id', '=', 'v.org_id')
        .onRef('c.environment', '=', 'v.environment')
        .onRef('c.case_type_id', '=', 'v.case_type_id')
        .onRef('c.workflow_version', '=', 'v.workflow_version'),
    )
    .select(['v.case_type_id', 'v.workflow_version', 'v.version_number', 'v.created_at', (eb) => eb.fn.count<string>('c.case_id').as('cases')])
    .where('v.org_id', '=', tenant.orgId)
    .where('v.environment', '=', tenant.environment)
    .groupBy(['v.case_type_id', 'v.workflow_version', 'v.version_number', 'v.created_at'])
    .orderBy('v.case_type_id')
    .orderBy('v.version_number', 'desc')
    .execute();
  return rows.map((r) => ({ ...r, cases: Number(r.cases) }));
}
