import type { Insertable, Selectable } from 'kysely';
import { toJsonb } from '../json.ts';
import type { Executor } from '../schema.ts';
import type { IntegrationNotificationsTable } from '../tables/webhooks.ts';
import type { Tenant } from '../../ports/tenant.ts';

export type NotificationRow = Selectable<IntegrationNotificationsTable>;

export async function insertNotification(
  db: Executor,
  row: Omit<Insertable<IntegrationNotificationsTable>, 'data'> & { data: Record<string, unknown> },
): Promise<void> {
  await db.insertInto('integration_notifications').values({ ...row, data: toJsonb(row.data) }).execute();
}

/** Newest first; `after` is the last row of the previous page. One extra row tells whether more remain. */
export async function listNotifications(
  db: Executor,
  query: Tenant & { limit: number; after?: { createdAt: Date; id: string } },
): Promise<{ rows: NotificationRow[]; hasMore: boolean }> {
  let q = db
    .selectFrom('integration_notifications')
    .selectAll()
    .where('org_id', '=', query.orgId)
    .where('environment', '=', query.environment);
  if (query.after) {
    const { createdAt, id } = query.after;
    q = q.where((eb) => eb.or([eb('created_at', '<', createdAt), eb.and([eb('created_at', '=', createdAt), eb('notification_id', '<', id)])]));
  }
  const rows = await q.orderBy('created_at', 'desc').orderBy('notification_id', 'desc').limit(query.limit + 1).execute();
  return { rows: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
}

export async function findNotification(db: Executor, tenant: Tenant, id: string): Promise<NotificationRow | undefined> {
  return db
    .selectFrom('integration_notifications')
    .selectAll()
    .where('notification_id', '=', id)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .executeTakeFirst();
}

export async function countUnreadNotifications(db: Executor, tenant: Tenant): Promise<number> {
  const row = await db
    .selectFrom('integration_notifications')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('read_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Marks the given notifications (or, with no ids, every unread one) of the workspace read; returns how many changed. */
export async function markNotificationsRead(db: Executor, query: Tenant & { ids?: readonly string[]; now: Date }): Promise<number> {
  let q = db
    .updateTable('integration_notifications')
    .set({ read_at: query.now })
    .where('org_id', '=', query.orgId)
    .where('environment', '=', query.environment)
    .where('read_at', 'is', null);
  if (query.ids) {
    if (query.ids.length === 0) return 0;
    q = q.where('notification_id', 'in', [...query.ids]);
  }
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
