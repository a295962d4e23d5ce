import { z } from 'zod';
import { listNotificationViews, markNotificationsRead, type NotificationView } from '../../../domain/webhooks/notifications.ts';
import { formList, queryText } from '../../page-route.ts';
import { html, type Markup } from '../../render.ts';
import { button, notification, tag } from '../../ui/components.ts';
import { tenantOf, type DashboardViewer } from '../context.ts';
import { csrfField } from '../layout.ts';
import { dashboardRoute } from '../route.ts';
import { when } from './format.ts';
import { sendDeveloperPage } from './shell.ts';

const NOTIFICATIONS_PATH = '/dashboard/developers/notifications';
const PAGE_SIZE = 50;
const KIND_TEXT: Record<NotificationView['kind'], string> = {
  webhook_delivery_failed: 'Delivery failed',
  webhook_no_endpoint: 'No endpoint',
};

interface NotificationsViewProps {
  notifications: readonly NotificationView[];
  /** Why the list could not be read (a cursor that names nothing), shown above it. */
  problem: string | undefined;
  nextCursor: string | null;
}

/** The notifications, newest first, each with a link to its delivery and a form to mark it read. */
function notificationsView({ notifications, problem, nextCursor }: NotificationsViewProps, viewer: DashboardViewer): Markup {
  const unread = notifications.filter((n) => !n.read_at);
  return html`<div class="page-header"><h1>Notifications</h1>
      ${unread.length
        ? html`<form method="post" action=${`${NOTIFICATIONS_PATH}/read`}>${csrfField(viewer)}${button({ text: 'Mark all as read', variant: 'secondary', name: 'all', value: 'true' })}</form>`
        : null}
    </div>
    ${problem !== undefined ? notification({ tone: 'warning', children: html`<p>${problem}</p>` }) : null}
    ${notifications.length === 0
      ? html`<div class="card"><p>Nothing to look at. Failed deliveries and events that had no endpoint to go to appear here.</p></div>`
      : html`<ul class="plain-list stack">
          ${notifications.map(
            (n) => html`<li class="card">
              <div class="cluster">${tag(KIND_TEXT[n.kind], n.kind === 'webhook_delivery_failed' ? 'danger' : 'warning')} ${n.read_at ? tag('Read', 'neutral') : tag('Unread', 'info')} <span class="muted small">${when(n.created_at)}</span></div>
              <p class=${n.read_at ? undefined : 'unread'}>${n.message}</p>
              ${typeof n.data.delivery_id === 'string' && typeof n.data.endpoint_id === 'string'
                ? html`<p><a href=${`/dashboard/developers/webhooks/${n.data.endpoint_id}/deliveries/${n.data.delivery_id}`}>See the delivery<span class="visually-hidden"> ${n.data.delivery_id}</span></a></p>`
                : null}
              ${n.read_at
                ? null
                : html`<form method="post" action=${`${NOTIFICATIONS_PATH}/read`}>${csrfField(viewer)}<input type="hidden" name="id" value=${n.notification_id} />${button({ text: 'Mark as read', variant: 'secondary', size: 'small', describedBy: undefined })}</form>`}
            </li>`,
          )}
        </ul>`}
    ${nextCursor ? html`<nav class="pagination" aria-label="Notification pages"><a href=${`${NOTIFICATIONS_PATH}?starting_after=${encodeURIComponent(nextCursor)}`}>Older notifications</a></nav>` : null}`;
}

/** GET /dashboard/developers/notifications: delivery failures and events with no endpoint, 50 a page. Admins only. */
export const notificationsPage = dashboardRoute({
  method: 'GET',
  url: '/developers/notifications',
  auth: 'admin',
  query: z.object({ starting_after: queryText }),
  handler: async ({ request, reply, query, deps }) => {
    const tenant = tenantOf(request);
    const after = query.starting_after;
    const listed = await listNotificationViews(deps.ctx, { ...tenant, limit: PAGE_SIZE, ...(after ? { startingAfter: after } : {}) });
    const page = listed.ok ? listed.value : { notifications: [], has_more: false, next_cursor: null };
    const props: NotificationsViewProps = { notifications: page.notifications, problem: listed.ok ? undefined : listed.message, nextCursor: page.next_cursor };
    return sendDeveloperPage(request, reply, deps, { title: 'Notifications', nav: 'notifications', body: (viewer) => notificationsView(props, viewer) });
  },
});

/** POST /dashboard/developers/notifications/read: marks the notifications named by `id` read, or all of them (`all=true`). */
export const markNotificationsReadPost = dashboardRoute({
  method: 'POST',
  url: '/developers/notifications/read',
  auth: 'admin',
  body: z.object({ id: formList, all: formList }),
  handler: async ({ request, reply, body, deps }) => {
    const all = body.all.includes('true');
    await markNotificationsRead(deps.ctx, { ...tenantOf(request), ...(all ? {} : { ids: body.id }) });
    return reply.redirect(NOTIFICATIONS_PATH, 303);
  },
});
