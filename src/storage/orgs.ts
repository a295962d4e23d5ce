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

/** Deployment-wide: the first `limit` workspaces, oldest first (the CLI's "the only workspace"). */
export async function listOrgsUnscoped(db: Executor, limit: number): Promise<OrgRow[]> {
  return db.selectFrom('orgs').selectAll().orderBy('created_at').orderBy('org_id').limit(limit).execute();
}
