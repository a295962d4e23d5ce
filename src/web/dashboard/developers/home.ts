import { html, sendPage } from '../../render.ts';
import { viewerOf } from '../context.ts';
import { dashboardPage } from '../layout.ts';
import { dashboardRoute } from '../route.ts';

const SECTIONS = [
  { href: '/dashboard/developers/keys', title: 'API keys', text: 'Create test and live keys, see when each was last used, and revoke them.' },
  { href: '/dashboard/developers/webhooks', title: 'Webhooks', text: 'Register endpoints, rotate signing secrets, send test events and read the delivery log.' },
  { href: '/dashboard/developers/notifications', title: 'Notifications', text: 'Delivery failures and events that had no endpoint to go to.' },
  { href: '/dashboard/developers/case-types', title: 'Case types', text: 'Upload case types and see each workflow version with the cases pinned to it.' },
  { href: '/dashboard/developers/account', title: 'Usage and account', text: 'Session usage against its caps, billing status, legal terms and operators.' },
  { href: '/docs', title: 'API reference', text: 'Every endpoint, field and error code, from the OpenAPI document.' },
] as const;

/** GET /dashboard/developers: the developer settings, one card each. Admins only. */
export const developersHomePage = dashboardRoute({
  method: 'GET',
  url: '/developers',
  auth: 'admin',
  handler: async ({ request, reply, deps }) =>
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
});
