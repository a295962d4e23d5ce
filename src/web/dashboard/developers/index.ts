import type { FastifyInstance } from 'fastify';
import { html, sendPage } from '../../render.ts';
import { viewerOf, type DashboardRouteDeps } from '../context.ts';
import { dashboardPage } from '../layout.ts';
import { registerKeys } from './keys.ts';
import { registerWebhooks } from './webhooks.ts';
import { registerCaseTypes } from './case-types.ts';
import { registerNotifications } from './notifications.ts';
import { registerAccount } from './account.ts';

const SECTIONS = [
  { href: '/dashboard/developers/keys', title: 'API keys', text: 'Create test and live keys, see when each was last used, and revoke them.' },
  { href: '/dashboard/developers/webhooks', title: 'Webhooks', text: 'Register endpoints, rotate signing secrets, send test events and read the delivery log.' },
  { href: '/dashboard/developers/notifications', title: 'Notifications', text: 'Delivery failures and events that had no endpoint to go to.' },
  { href: '/dashboard/developers/case-types', title: 'Case types', text: 'Upload case types and see each workflow version with the cases pinned to it.' },
  { href: '/dashboard/developers/account', title: 'Usage and account', text: 'Session usage against its caps, billing status, legal terms and operators.' },
  { href: '/docs', title: 'API reference', text: 'Every endpoint, field and error code, from the OpenAPI document.' },
] as const;

/**
 * GET /dashboard/developers and every developer settings page under it: admins only (each route
 * declares `auth: 'admin'`; the dashboard's access hook refuses reviewers before a handler runs).
 */
export function registerDevelopersIndex(scope: FastifyInstance, deps: DashboardRouteDeps): void {
  registerKeys(scope, deps);
  registerWebhooks(scope, deps);
  registerCaseTypes(scope, deps);
  registerNotifications(scope, deps);
  registerAccount(scope, deps);
  scope.get('/developers', { config: { auth: 'admin' } }, async (request, reply) =>
    sendPage(
      reply,
      dashboardPage({
        viewer: viewerOf(request, deps),
        title: 'Developers',
        nav: 'keys',
        children: html`<div class="page-header"><h1>Developers</h1></div>
          <div class="grid">
            ${SECTIONS.map((s) => html`<a class="stat" href=${s.href}><span class="stat__value">${s.title}</span><span class="stat__label">${s.text}</span></a>`)}
          </div>`,
      }),
    ),
  );
}
