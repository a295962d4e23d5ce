import { sql, type Insertable, type Selectable } from 'kysely';
import type { Environment } from '../config.ts';
import type { Executor } from './schema.ts';
import type { OperatorRole, OperatorSessionsTable, OperatorsTable } from './tables/operators.ts';

export type OperatorRow = Selectable<OperatorsTable>;
export type OperatorSessionRow = Selectable<OperatorSessionsTable>;

export async function insertOperator(db: Executor, row: Insertable<OperatorsTable>): Promise<OperatorRow> {
  return db.insertInto('operators').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findOperatorByEmail(db: Executor, email: string): Promise<OperatorRow | undefined> {
  return db.selectFrom('operators').selectAll().where(sql<string>`lower(email)`, '=', email.toLowerCase()).executeTakeFirst();
}

export async function findOperatorInOrg(db: Executor, orgId: string, operatorId: string): Promise<OperatorRow | undefined> {
  return db.selectFrom('operators').selectAll().where('operator_id', '=', operatorId).where('org_id', '=', orgId).executeTakeFirst();
}

export async function listOperatorsOfOrg(db: Executor, orgId: string): Promise<OperatorRow[]> {
  return db.selectFrom('operators').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('operator_id').execute();
}

export async function setOperatorRole(db: Executor, operatorId: string, role: OperatorRole, now: Date): Promise<void> {
  await db.updateTable('operators').set({ role, updated_at: now }).where('operator_id', '=', operatorId).execute();
}

export async function setOperatorDisabled(db: Executor, operatorId: string, disabledAt: Date | null, now: Date): Promise<void> {
  await db.updateTable('operators').set({ disabled_at: disabledAt, updated_at: now }).where('operator_id', '=', operatorId).execute();
}

export async function markOperatorSignedIn(db: Executor, operatorId: string, now: Date): Promise<void> {
  await db.updateTable('operators').set({ last_sign_in_at: now }).where('operator_id', '=', operatorId).execute();
}

export async function insertOperatorSession(db: Executor, row: Insertable<OperatorSessionsTable>): Promise<void> {
  await db.insertInto('operator_sessions').values(row).execute();
}

/** A live session and its operator, by the hash of the cookie's token. */
export async function findLiveOperatorSession(
  db: Executor,
  tokenHash: string,
  now: Date,
): Promise<{ session: OperatorSessionRow; operator: OperatorRow; orgName: string; unreadNotifications: number | null } | undefined> {
  const row = await db
    .selectFrom('operator_sessions as s')
    .innerJoin('operators as o', 'o.operator_id', 's.operator_id')
    .innerJoin('orgs as g', 'g.org_id', 's.org_id')
    .selectAll('s')
    .select(['g.name as org_name', 'o.email', 'o.role', 'o.password_hash', 'o.disabled_at', 'o.last_sign_in_at', 'o.created_at as operator_created_at', 'o.updated_at as operator_updated_at'])
    // Admins' navigation shows the unread integration notifications on every page: read in the
    // same round trip as the session (index integration_notifications_unread), not after it.
    .select(
      sql<string | null>`case when o.role = 'admin' then (select count(*) from integration_notifications n where n.org_id = s.org_id and n.environment = s.environment and n.read_at is null) end`.as('unread_notifications'),
    )
    .where('s.token_hash', '=', tokenHash)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return undefined;
  const { org_name, email, role, password_hash, disabled_at, last_sign_in_at, operator_created_at, operator_updated_at, unread_notifications, ...session } = row;
  return {
    orgName: org_name,
    unreadNotifications: unread_notifications === null ? null : Number(unread_notifications),
    session,
    operator: {
      operator_id: session.operator_id,
      org_id: session.org_id,
      email,
      role,
      password_hash,
      disabled_at,
      last_sign_in_at,
      created_at: operator_created_at,
      updated_at: operator_updated_at,
    },
  };
}

export async function touchOperatorSession(db: Executor, sessionId: string, now: Date): Promise<void> {
  await db.updateTable('operator_sessions').set({ last_seen_at: now }).where('session_id', '=', sessionId).execute();
}

export async function setOperatorSessionEnvironment(db: Executor, sessionId: string, environment: Environment): Promise<void> {
  await db.updateTable('operator_sessions').set({ environment }).where('session_id', '=', sessionId).execute();
}

export async function revokeOperatorSession(db: Executor, sessionId: string, now: Date): Promise<void> {
  await db.updateTable('operator_sessions').set({ revoked_at: now }).where('session_id', '=', sessionId).where('revoked_at', 'is', null).execute();
}

export async function revokeSessionsOfOperator(db: Executor, operatorId: string, now: Date): Promise<void> {
  await db.updateTable('operator_sessions').set({ revoked_at: now }).where('operator_id', '=', operatorId).where('revoked_at', 'is', null).execute();
}

/**
 * Counts one sign-in attempt in a bucket's current window and returns the new count: one
 * statement, so concurrent attempts each see their own count (issue 23 §2: reading first and
 * counting after the password check let 40 parallel guesses all through). Autocommit and one
 * row: nothing is held while the password is checked.
 */
export async function countSignInAttempt(db: Executor, bucket: string, windowStart: Date): Promise<number> {
  const row = await db
    .insertInto('sign_in_failures')
    .values({ bucket, window_start: windowStart, failures: 1 })
    .onConflict((oc) => oc.columns(['bucket', 'window_start']).doUpdateSet({ failures: sql`sign_in_failures.failures + 1` }))
    .returning('failures')
    .executeTakeFirstOrThrow();
  return row.failures;
}

/** Takes back one counted attempt from a bucket's window (a sign-in that proved the password). */
export async function uncountSignInAttempt(db: Executor, bucket: string, windowStart: Date): Promise<void> {
  await db
    .updateTable('sign_in_failures')
    .set({ failures: sql`greatest(failures - 1, 0)` })
    .where('bucket', '=', bucket)
    .where('window_start', '=', windowStart)
    .execute();
}

export async function clearSignInFailures(db: Executor, bucket: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('bucket', '=', bucket).execute();
}

/** Windows that ended before `before`: nothing reads them again. */
export async function deleteOldSignInFailures(db: Executor, before: Date): Promise<number> {
  const result = await db.deleteFrom('sign_in_failures').where('window_start', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The emails of some of a workspace's operators, by id (others are left out). */
export async function selectOperatorEmails(db: Executor, orgId: string, operatorIds: readonly string[]): Promise<{ operator_id: string; email: string }[]> {
  if (operatorIds.length === 0) return [];
  return db.selectFrom('operators').select(['operator_id', 'email']).where('org_id', '=', orgId).where('operator_id', 'in', operatorIds).execute();
}
