import type { FastifyInstance } from 'fastify';
import { listNotificationViews, markNotificationsRead, type NotificationView } from '../../../domain/webhooks/notifications.ts';
import { formFields } from '../../face.ts';
import { html } from '../../render.ts';
import { button, notification, tag } from '../../ui/components.ts';
import { tenantOf, type DashboardRouteDeps } from '../context.ts';
import { csrfField } from '../layout.ts';
import { when } from './format.ts';
import { sendDeveloperPage } from './shell.ts';

const NOTIFICATIONS_PATH = '/dashboard/developers/notifications';
const PAGE_SIZE = 50;
const KIND_TEXT: Record<NotificationView['kind'], string> = {
  webhook_delivery_failed: 'Delivery failed',
  webhook_no_endpoint: 'No endpoint',
};

/** Integration notifications: delivery failures and events with no endpoint, marked read here. Admins only. */
export function registerNotifications(scope: FastifyInstance, deps: DashboardRouteDeps): void {
  const { ctx } = deps;

  scope.get('/developers/notifications', { config: { auth: 'admin' } }, async (request, reply) => {
    const tenant = tenantOf(request);
    const after = (request.query as { starting_after?: string }).starting_after;
    const listed = await listNotificationViews(ctx, { ...tenant, limit: PAGE_SIZE, ...(after ? { startingAfter: after } : {}) });
    const page = listed.ok ? listed.value : { notifications: [], has_more: false, next_cursor: null };
    const unread = page.notifications.filter((n) => !n.read_at);
    return sendDeveloperPage(request, reply, deps, {
      title: 'Notifications',
      nav: 'notifications',
      body: (viewer) => html`<div class="page-header"><h1>Notifications</h1>
          ${unread.length
            ? html`<form method="post" action=${`${NOTIFICATIONS_PATH}/read`}>${csrfField(viewer)}${button({ text: 'Mark all as read', variant: 'secondary', name: 'all', value: 'true' })}</form>`
            : null}
        </div>
        ${!listed.ok ? notification({ tone: 'warning', children: html`<p>${listed.message}</p>` }) : null}
        ${page.notifications.length === 0
          ? html`<div class="card"><p>Nothing to look at. Failed deliveries and events that had no endpoint to go to appear here.</p></div>`
          : html`<ul class="plain-list stack">
              ${page.notifications.map(
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
        ${page.next_cursor ? html`<nav class="pagination" aria-label="Notification pages"><a href=${`${NOTIFICATIONS_PATH}?starting_after=${encodeURIComponent(page.next_cursor)}`}>Older notifications</a></nav>` : null}`,
    });
  });

  scope.post('/developers/notifications/read', { config: { auth: 'admin' } }, async (request, reply) => {
    const ids = formFields(request.body, 'id');
    const all = formFields(request.body, 'all').includes('true');
    await markNotificationsRead(ctx, { ...tenantOf(request), ...(all ? {} : { ids }) });
    return reply.redirect(NOTIFICATIONS_PATH, 303);
  });
}
