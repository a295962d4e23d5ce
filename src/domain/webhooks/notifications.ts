import type { Environment } from '../../config.ts';
import type { Deps } from '../deps.ts';
import type { NotificationKind } from '../../storage/tables/webhooks.ts';
import {
  countUnreadNotifications as countUnreadRows,
  findNotification,
  listNotifications,
  markNotificationsRead as markRows,
} from '../../storage/webhooks/notifications.ts';
import { fail, ok, type Result } from '../errors.ts';

export interface NotificationView {
  notification_id: string;
  kind: NotificationKind;
  message: string;
  data: Record<string, unknown>;
  created_at: string;
  /** When it was marked read in the dashboard; null while unread. */
  read_at: string | null;
}

export interface NotificationPage {
  notifications: NotificationView[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Integration notifications of the workspace, newest first, paged like the delivery log. */
export async function listNotificationViews(
  deps: Pick<Deps, 'db'>,
  input: { orgId: string; environment: Environment; limit: number; startingAfter?: string },
): Promise<Result<NotificationPage>> {
  let after: { createdAt: Date; id: string } | undefined;
  if (input.startingAfter !== undefined) {
    const anchor = await findNotification(deps.db, input, input.startingAfter);
    if (!anchor) return fail('invalid_request', `starting_after: no notification ${input.startingAfter} in this workspace.`);
    after = { createdAt: anchor.created_at, id: anchor.notification_id };
  }
  const { rows, hasMore } = await listNotifications(deps.db, { orgId: input.orgId, environment: input.environment, limit: input.limit, ...(after ? { after } : {}) });
  const notifications = rows.map((r) => ({
    notification_id: r.notification_id,
    kind: r.kind,
    message: r.message,
    data: r.data,
    created_at: r.created_at.toISOString(),
    read_at: r.read_at?.toISOString() ?? null,
  }));
  return ok({ notifications, has_more: hasMore, next_cursor: hasMore ? notifications.at(-1)!.notification_id : null });
}

export async function countUnreadNotifications(deps: Pick<Deps, 'db'>, input: { orgId: string; environment: Environment }): Promise<number> {
  return countUnreadRows(deps.db, input);
}

/** Marks notifications of the workspace read: the given ones, or all unread ones when `ids` is absent. */
export async function markNotificationsRead(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: { orgId: string; environment: Environment; ids?: readonly string[] },
): Promise<{ marked: number }> {
  return { marked: await markRows(deps.db, { ...input, now: deps.clock.now() }) };
}
