import { z } from 'zod';
import { listDeliveryLog, type DeliverySummary } from '../../../../domain/webhooks/delivery-log.ts';
import { getEndpoint, type EndpointView } from '../../../../domain/webhooks/endpoints.ts';
import { WEBHOOK_EVENT_TYPES } from '../../../../domain/webhooks/event-types.ts';
import { listenerStates, type ListenerState } from '../../../../domain/webhooks/listeners.ts';
import type { DeliveryStatus } from '../../../../storage/tables/webhooks.ts';
import { queryText } from '../../../page-route.ts';
import { html, type Markup } from '../../../render.ts';
import { backLink, button, notification, summaryList, table } from '../../../ui/components.ts';
import { select, textInput } from '../../../ui/fields.ts';
import { tenantOf, type DashboardViewer } from '../../context.ts';
import { csrfField } from '../../layout.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, takeFlash, type Flash } from '../flash.ts';
import { when, whenPrecise } from '../format.ts';
import { sendDeveloperPage } from '../shell.ts';
import { DELIVERY_STATUSES, deliveryPath, deliveryStatusTag, endpointName, endpointPath, endpointStatus, eventsText, STATUS_TEXT, WEBHOOKS_PATH } from './views.ts';

const LOG_PAGE_SIZE = 20;

function secretNotice(flash: Extract<Flash, { kind: 'endpoint_secret' }>, e: EndpointView) {
  return notification({
    tone: 'success',
    title: flash.rotated ? 'The new signing secret' : 'Endpoint added: its signing secret',
    role: 'status',
    children: html`<p><strong>Copy it now: it will not be shown again.</strong> Your receiver verifies the <code>X-Service-Signature</code> header with it.</p>
      <div class="key-reveal secret-box"><code id="signing-secret">${flash.signing_secret}</code><button type="button" class="button button--secondary button--small" data-copy-target="signing-secret" hidden>Copy secret</button></div>
      ${flash.rotated && e.previous_secret_expires_at ? html`<p>Deliveries are signed with both the old and the new secret until ${when(e.previous_secret_expires_at)}.</p>` : null}`,
  });
}

function testNotice(flash: Extract<Flash, { kind: 'test_sent' }>) {
  return notification({
    tone: flash.success ? 'success' : 'danger',
    title: flash.success ? 'Test event delivered' : 'The test event was not accepted',
    role: flash.success ? 'status' : 'alert',
    children: html`${summaryList([
      { key: 'Status code', value: flash.status_code === null ? 'No HTTP answer' : String(flash.status_code) },
      { key: 'Duration', value: `${flash.duration_ms} ms` },
      ...(flash.error ? [{ key: 'Error', value: flash.error }] : []),
    ])}`,
  });
}

interface EndpointViewProps {
  endpoint: EndpointView;
  /** Set when the endpoint is a `dossier listen` listener. */
  listener: ListenerState | undefined;
  flash: Flash | undefined;
  /** The delivery log's filters, as understood (an unknown status or event type is no filter). */
  status: DeliveryStatus | undefined;
  eventType: string | undefined;
  caseId: string;
  deliveries: readonly DeliverySummary[];
  /** Why the log could not be read (a cursor that names nothing), shown above it. */
  problem: string | undefined;
  /** The query of the next, older page of the log. */
  nextQuery: string | undefined;
}

/** One endpoint: its settings and actions, a secret or test outcome from the flash, and its filtered delivery log. */
function endpointView({ endpoint: e, listener, flash, status, eventType, caseId, deliveries, problem, nextQuery }: EndpointViewProps, viewer: DashboardViewer): Markup {
  return html`${backLink(WEBHOOKS_PATH, 'Back to webhooks')}
    <div class="page-header"><h1 class="break">${endpointName(e, listener)}</h1>${endpointStatus(e, listener)}</div>
    ${listener
      ? html`<p>${listener.connected ? 'A' : 'No'} <code>dossier listen</code> is connected: it receives these deliveries and POSTs them to <code class="break">${e.url}</code> from its own machine. ${listener.connected ? '' : 'Deliveries wait and are retried on the schedule until it connects again.'}</p>`
      : null}
    ${flash?.kind === 'endpoint_secret' && flash.endpoint_id === e.endpoint_id ? secretNotice(flash, e) : null}
    ${flash?.kind === 'test_sent' && flash.endpoint_id === e.endpoint_id ? testNotice(flash) : null}
    ${flash?.kind === 'notice' ? notification({ tone: 'success', role: 'status', children: html`<p>${flash.text}</p>` }) : null}
    <section class="card" aria-labelledby="endpoint-heading">
      <h2 class="card__title" id="endpoint-heading">Settings</h2>
      ${summaryList([
        { key: 'Endpoint id', value: html`<code>${e.endpoint_id}</code>` },
        ...(listener ? [{ key: 'Kind', value: html`CLI listener (<code>dossier listen</code>, name <code>${listener.name}</code>)` }] : []),
        { key: 'Environment', value: e.environment === 'live' ? 'Live' : 'Test' },
        { key: 'Events', value: eventsText(e.events) },
        { key: 'Created', value: when(e.created_at) },
        ...(e.previous_secret_expires_at ? [{ key: 'Secret rotation', value: html`The previous secret also signs until ${when(e.previous_secret_expires_at)}` }] : []),
      ])}
      <div class="button-group">
        <form method="post" action=${`${endpointPath(e.endpoint_id)}/test`}>${csrfField(viewer)}${button({ text: 'Send test event', data: { 'prevent-double-submit': '' } })}</form>
        <a class="button button--secondary" href=${`${endpointPath(e.endpoint_id)}/rotate`}>Rotate secret</a>
        <form method="post" action=${`${endpointPath(e.endpoint_id)}/${e.enabled ? 'disable' : 'enable'}`}>
          ${csrfField(viewer)}${button({ text: e.enabled ? 'Disable endpoint' : 'Enable endpoint', variant: e.enabled ? 'warning' : 'secondary', data: e.enabled ? { confirm: 'Disable this endpoint? It will receive no new deliveries.' } : {} })}
        </form>
      </div>
    </section>
    <section class="card" aria-labelledby="log-heading">
      <h2 class="card__title" id="log-heading">Delivery log</h2>
      <form method="get" action=${endpointPath(e.endpoint_id)} class="log-filters">
        ${select({ id: 'filter-status', name: 'status', label: 'Status', value: status ?? '', placeholder: 'Any status', options: DELIVERY_STATUSES.map((s) => ({ value: s, text: STATUS_TEXT[s].text })) })}
        ${select({ id: 'filter-event', name: 'event_type', label: 'Event type', value: eventType ?? '', placeholder: 'Any event', options: WEBHOOK_EVENT_TYPES.filter((t) => t !== 'v1.webhook.test').map((t) => ({ value: t, text: t })) })}
        ${textInput({ id: 'filter-case', name: 'case_id', label: 'Case id', value: caseId, spellcheck: false, width: 'w30' })}
        ${button({ text: 'Filter', variant: 'secondary' })}
      </form>
      ${problem !== undefined ? notification({ tone: 'warning', children: html`<p>${problem}</p>` }) : null}
      ${table<DeliverySummary>({
        stack: true,
        caption: 'Deliveries to this endpoint, newest first',
        captionHidden: true,
        scrollRegion: true,
        rows: deliveries,
        empty: status || eventType || caseId ? 'No deliveries match these filters.' : 'No deliveries yet. Send a test event: it is kept here with its attempt.',
        columns: [
          { header: 'Event', rowHeader: true, cell: (d) => html`<a href=${deliveryPath(e.endpoint_id, d.delivery_id)}><code>${d.event_type}</code><span class="visually-hidden"> delivery ${d.delivery_id}</span></a>` },
          { header: 'Status', cell: (d) => deliveryStatusTag(d.status) },
          { header: 'Attempts', numeric: true, cell: (d) => `${d.attempt_count} of ${d.max_attempts}` },
          { header: 'Last answer', cell: (d) => (d.last_status_code !== null ? String(d.last_status_code) : d.last_error ? html`<span class="muted">${d.last_error}</span>` : '—') },
          { header: 'Next attempt', cell: (d) => whenPrecise(d.next_attempt_at) },
          { header: 'Case', cell: (d) => (d.case_id ? html`<code class="mono">${d.case_id}</code>` : '—') },
          { header: 'Created', cell: (d) => whenPrecise(d.created_at) },
        ],
      })}
      ${nextQuery ? html`<nav class="pagination" aria-label="Delivery log pages"><a href=${`${endpointPath(e.endpoint_id)}?${nextQuery}`}>Older deliveries</a></nav>` : null}
    </section>`;
}

/** GET /dashboard/developers/webhooks/{endpoint_id}: an endpoint with its delivery log, filtered by status, event type and case, 20 a page. Admins only. */
export const endpointPage = dashboardRoute({
  method: 'GET',
  url: '/developers/webhooks/:endpoint_id',
  auth: 'admin',
  params: z.object({ endpoint_id: z.string() }),
  query: z.object({ status: queryText, event_type: queryText, case_id: queryText, starting_after: queryText }),
  handler: async ({ request, reply, params, query, deps }) => {
    const { ctx } = deps;
    const tenant = tenantOf(request);
    const found = await getEndpoint(ctx, { tenant, endpointId: params.endpoint_id });
    if (!found.ok) return reply.callNotFound();
    const e = found.value;
    const listener = (await listenerStates(ctx, tenant)).get(e.endpoint_id);
    const filters = { status: query.status ?? '', event_type: query.event_type ?? '', case_id: (query.case_id ?? '').trim(), starting_after: query.starting_after ?? '' };
    const status = (DELIVERY_STATUSES as readonly string[]).includes(filters.status) ? (filters.status as DeliveryStatus) : undefined;
    const eventType = (WEBHOOK_EVENT_TYPES as readonly string[]).includes(filters.event_type) ? filters.event_type : undefined;
    const log = await listDeliveryLog(ctx, {
      orgId: tenant.orgId,
      environment: tenant.environment,
      endpointId: e.endpoint_id,
      limit: LOG_PAGE_SIZE,
      ...(status ? { status } : {}),
      ...(eventType ? { eventType } : {}),
      ...(filters.case_id ? { caseId: filters.case_id } : {}),
      ...(filters.starting_after ? { startingAfter: filters.starting_after } : {}),
    });
    const page = log.ok ? log.value : { deliveries: [], has_more: false, next_cursor: null };
    const flash = takeFlash(reply, request, flashDeps(deps));
    const nextQuery = page.next_cursor
      ? new URLSearchParams({ ...(status ? { status } : {}), ...(eventType ? { event_type: eventType } : {}), ...(filters.case_id ? { case_id: filters.case_id } : {}), starting_after: page.next_cursor }).toString()
      : undefined;
    const props: EndpointViewProps = { endpoint: e, listener, flash, status, eventType, caseId: filters.case_id, deliveries: page.deliveries, problem: log.ok ? undefined : log.message, nextQuery };
    return sendDeveloperPage(request, reply, deps, {
      title: `Endpoint ${endpointName(e, listener)}`,
      nav: 'webhooks',
      body: (viewer) => endpointView(props, viewer),
    });
  },
});
