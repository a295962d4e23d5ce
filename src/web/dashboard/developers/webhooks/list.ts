import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Environment } from '../../../../config.ts';
import { recentDeliveryStats, type RecentDeliveryStats } from '../../../../domain/webhooks/delivery-log.ts';
import { listEndpointViews, type EndpointView } from '../../../../domain/webhooks/endpoints.ts';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../../../domain/webhooks/event-types.ts';
import { listenerStates, type ListenerState } from '../../../../domain/webhooks/listeners.ts';
import { html, type Markup } from '../../../render.ts';
import { button, notification, table, type ErrorItem } from '../../../ui/components.ts';
import { choices, textInput } from '../../../ui/fields.ts';
import { tenantOf, type DashboardRouteDeps, type DashboardViewer } from '../../context.ts';
import { csrfField } from '../../layout.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, takeFlash, type Flash } from '../flash.ts';
import { sendDeveloperPage } from '../shell.ts';
import { endpointName, endpointPath, endpointStatus, eventsText, WEBHOOKS_PATH } from './views.ts';

const LISTEN_HINT = html`To receive test deliveries on your own machine, run <code>npm run dossier -- listen --forward-to http://localhost:4567/hook</code>: it appears here as a CLI listener.`;

/** The add-endpoint form as sent, or empty. */
export interface EndpointForm {
  url: string;
  events: string[];
}

interface WebhooksViewProps {
  environment: Environment;
  endpoints: readonly EndpointView[];
  /** Each endpoint's last 24 hours of deliveries. */
  stats: ReadonlyMap<string, RecentDeliveryStats>;
  /** The endpoints that are `dossier listen` listeners. */
  listeners: ReadonlyMap<string, ListenerState>;
  notice: Flash | undefined;
  /** Whether workspaces may register endpoints themselves, and reach private addresses. */
  selfServe: boolean;
  allowPrivateNetwork: boolean;
  form: EndpointForm;
  errors: readonly ErrorItem[];
}

/** The endpoints of this environment with their last day of deliveries, and the add-endpoint form. */
function webhooksView({ environment, endpoints, stats, listeners, notice, selfServe, allowPrivateNetwork, form, errors }: WebhooksViewProps, viewer: DashboardViewer): Markup {
  const err = (id: string) => errors.find((e) => e.href === id)?.text;
  return html`<div class="page-header"><h1>Webhooks</h1></div>
    ${notice?.kind === 'notice' ? notification({ tone: 'success', role: 'status', children: html`<p>${notice.text}</p>` }) : null}
    ${!selfServe
      ? notification({ tone: 'warning', title: 'Self-serve webhooks are disabled on this deployment', children: html`<p>Its operator registers endpoints; sessions are refused while this workspace has an enabled one.</p>` })
      : null}
    <section class="card card--flush" aria-labelledby="endpoints-heading">
      <h2 class="card__title card__title--inset" id="endpoints-heading">Endpoints (${environment})</h2>
      ${table<EndpointView>({
        stack: true,
        caption: 'Webhook endpoints',
        captionHidden: true,
        scrollRegion: true,
        rows: endpoints,
        empty: 'No endpoints yet. Add one below.',
        columns: [
          { header: 'URL', rowHeader: true, cell: (e) => html`<a href=${endpointPath(e.endpoint_id)}>${endpointName(e, listeners.get(e.endpoint_id))}</a>` },
          { header: 'Events', cell: (e) => eventsText(e.events) },
          { header: 'Status', cell: (e) => endpointStatus(e, listeners.get(e.endpoint_id)) },
          {
            header: 'Last 24 hours',
            cell: (e) => {
              const s = stats.get(e.endpoint_id);
              if (!s) return html`<span class="muted">No deliveries</span>`;
              const total = s.delivered + s.failed + s.waiting;
              return html`${s.delivered} of ${total} delivered${s.failed ? html`, <strong>${s.failed} failed</strong>` : null}${s.waiting ? `, ${s.waiting} waiting` : ''}`;
            },
          },
        ],
      })}
    </section>
    ${environment === 'test' ? html`<p class="muted">${LISTEN_HINT}</p>` : null}
    <section class="card" aria-labelledby="add-heading">
      <h2 class="card__title" id="add-heading">Add an endpoint</h2>
      <form method="post" action=${WEBHOOKS_PATH} novalidate>
        ${csrfField(viewer)}
        ${textInput({ id: 'endpoint-url', name: 'url', label: 'Endpoint URL', hint: allowPrivateNetwork ? 'An http or https URL.' : 'A public https URL, like https://hooks.example.com/dossier.', type: 'url', value: form.url, spellcheck: false, error: err('endpoint-url') })}
        ${choices({
          id: 'endpoint-events',
          name: 'events',
          label: 'Events to send',
          type: 'checkbox',
          hint: 'Choose all events, or the ones your receiver handles.',
          options: [{ value: '*', text: 'All events', hint: 'Including event types added later.' }, ...SUBSCRIBABLE_EVENT_TYPES.map((e) => ({ value: e, text: e }))],
          values: form.events,
          error: err('endpoint-events'),
        })}
        ${button({ text: 'Add endpoint', data: { 'prevent-double-submit': '' } })}
      </form>
    </section>`;
}

/** The webhooks page, with the add-endpoint form as sent and its problems (`status`), or empty (reading the flash). */
export async function showWebhooks(request: FastifyRequest, reply: FastifyReply, deps: DashboardRouteDeps, form: EndpointForm, errors: ErrorItem[] = [], status = 200) {
  const { ctx } = deps;
  const tenant = tenantOf(request);
  const [endpoints, stats, listeners] = await Promise.all([listEndpointViews(ctx, { tenant }), recentDeliveryStats(ctx, tenant), listenerStates(ctx, tenant)]);
  const notice = errors.length === 0 ? takeFlash(reply, request, flashDeps(deps)) : undefined;
  const props: WebhooksViewProps = {
    environment: tenant.environment,
    endpoints,
    stats,
    listeners,
    notice,
    selfServe: ctx.config.selfServeWebhooks,
    allowPrivateNetwork: ctx.config.allowPrivateNetwork,
    form,
    errors,
  };
  return sendDeveloperPage(request, reply, deps, {
    title: 'Webhooks',
    nav: 'webhooks',
    errors,
    status,
    body: (viewer) => webhooksView(props, viewer),
  });
}

/** GET /dashboard/developers/webhooks: the endpoints with their last day of deliveries, and the add-endpoint form. Admins only. */
export const webhooksPage = dashboardRoute({
  method: 'GET',
  url: '/developers/webhooks',
  auth: 'admin',
  handler: async ({ request, reply, deps }) => showWebhooks(request, reply, deps, { url: '', events: [] }),
});
