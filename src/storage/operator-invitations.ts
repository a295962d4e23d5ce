import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from './schema.ts';
import type { OperatorInvitationsTable } from './tables/operators.ts';

export type InvitationRow = Selectable<OperatorInvitationsTable>;

/** Withdraws the email's open invitation in the workspace, if any: the newest link is the only one that works. */
export async function withdrawOpenInvitation(db: Executor, orgId: string, email: string, now: Date): Promise<void> {
  await db
    .updateTable('operator_invitations')
    .set({ withdrawn_at: now })
    .where('org_id', '=', orgId)
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .where('accepted_at', 'is', null)
    .where('withdrawn_at', 'is', null)
    .execute();
}

export async function insertInvitation(db: Executor, row: Insertable<OperatorInvitationsTable>): Promise<InvitationRow> {
  return db.insertInto('operator_invitations').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The invitation behind a link, with its workspace's name; `forUpdate` locks it for the acceptance. */
export async function findInvitationByTokenHash(db: Executor, tokenHash: string, forUpdate = false): Promise<(InvitationRow & { org_name: string }) | undefined> {
  let query = db
    .selectFrom('operator_invitations as i')
    .innerJoin('orgs as g', 'g.org_id', 'i.org_id')
    .selectAll('i')
    .select('g.name as org_name')
    .where('i.token_hash', '=', tokenHash);
  if (forUpdate) query = query.forUpdate('i');
  return query.executeTakeFirst();
}

/** Open invitations of a workspace (not accepted, not withdrawn; expired ones included, to be sent again), newest first. */
export async function listOpenInvitations(db: Executor, orgId: string): Promise<InvitationRow[]> {
  return db
    .selectFrom('operator_invitations')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('accepted_at', 'is', null)
    .where('withdrawn_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('invitation_id')
    .execute();
}

export async function markInvitationAccepted(db: Executor, invitationId: string, operatorId: string, now: Date): Promise<void> {
  await db.updateTable('operator_invitations').set({ accepted_at: now, accepted_operator_id: operatorId }).where('invitation_id', '=', invitationId).execute();
}

/** Withdraws one open invitation of a workspace; false when there was none to withdraw. */
export async function withdrawInvitation(db: Executor, orgId: string, invitationId: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('operator_invitations')
    .set({ withdrawn_at: now })
    .where('org_id', '=', orgId)
    .where('invitation_id', '=', invitationId)
    .where('accepted_at', 'is', null)
    .where('withdrawn_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
