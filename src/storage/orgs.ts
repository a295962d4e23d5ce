import type { Executor, NewOrgRow, OrgRow, OrgUpdate } from './schema.ts';

export async function insertOrg(db: Executor, row: NewOrgRow): Promise<OrgRow> {
  return db.insertInto('orgs').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findOrg(db: Executor, orgId: string): Promise<OrgRow | undefined> {
  return db.selectFrom('orgs').selectAll().where('org_id', '=', orgId).executeTakeFirst();
}

export async function updateOrgRow(db: Executor, orgId: string, changes: OrgUpdate): Promise<OrgRow | undefined> {
  return db.updateTable('orgs').set(changes).where('org_id', '=', orgId).returningAll().executeTakeFirst();
}
