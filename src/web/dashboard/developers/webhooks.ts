import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getDeliveryDetail, listDeliveryLog, recentDeliveryStats, retryDelivery, type DeliverySummary } from '../../../domain/webhooks/delivery-log.ts';
import {
  createEndpoint,
  currentSigningSecret,
  disableEndpointById,
  enableEndpointById,
  getEndpoint,
  listEndpointViews,
  rotateEndpointSecret,
  type EndpointView,
} from '../../../domain/webhooks/endpoints.ts';
import { SUBSCRIBABLE_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from '../../../domain/webhooks/event-types.ts';
import { listenerStates, type ListenerState } from '../../../domain/webhooks/listeners.ts';
import { queueTestDelivery, sendTestWebhook } from '../../../domain/webhooks/test-send.ts';
import { sentRequestOf, WEBHOOK_USER_AGENT } from '../../../domain/webhooks/sent-request.ts';
import type { DeliveryStatus } from '../../../storage/tables/webhooks.ts';
import { formField, formFields } from '../../face.ts';
import { html, type Markup } from '../../render.ts';
import { backLink, button, details, notification, summaryList, table, tag, type ErrorItem, type Tone } from '../../ui/components.ts';
import { choices, select, textInput } from '../../ui/fields.ts';
import { tenantOf, type DashboardViewer, type DashboardRouteDeps } from '../context.ts';
import { csrfField } from '../layout.ts';
import { setFlash, takeFlash, type Flash } from './flash.ts';
import { when, whenPrecise } from './format.ts';
import { sendDeveloperPage } from './shell.ts';

const WEBHOOKS_PATH = '/dashboard/developers/webhooks';
const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'retry_scheduled', 'delivered', 'failed'];
const STATUS_TEXT: Record<DeliveryStatus, { text: string; tone: Tone }> = {
  pending: { text: 'Pending', tone: 'info' },
  retry_scheduled: { text: 'Retry scheduled', tone: 'warning' },
  delivered: { text: 'Delivered', tone: 'success' },
  failed: { text: 'Failed', tone: 'danger' },
};
const LOG_PAGE_SIZE = 20;

const endpointPath = (id: string) => `${WEBHOOKS_PATH}/${id}`;
const deliveryPath = (endpointId: string, deliveryId: string) => `${endpointPath(endpointId)}/deliveries/${deliveryId}`;

function eventsText(events: readonly string[]): Markup {
  return events.includes('*') ? 'All events' : html`<ul class="plain-list">${events.map((e) => html`<li><code>${e}</code></li>`)}</ul>`;
}

function endpointStatus(e: EndpointView, listener?: ListenerState) {
  if (!e.enabled) return tag('Disabled', 'neutral');
  if (listener) return listener.connected ? tag('Connected', 'success') : tag('Not connected', 'warning');
  return tag('Enabled', 'success');
}

/** A `dossier listen` listener is an endpoint of its own kind: named as such, its URL being where the CLI forwards. */
function endpointName(e: EndpointView, listener?: ListenerState): string {
  return listener ? `CLI listener → ${e.url}` : e.url;
}

const LISTEN_HINT = html`To receive test deliveries on your own machine, run <code>npm run dossier -- listen --forward-to http://localhost:4567/hook</code>: it appears here as a CLI listener.`;

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

function deliveryStatusTag(status: DeliveryStatus) {
  const s = STATUS_TEXT[status];
  return tag(s.text, s.tone);
}

interface LogFilters {
  status: string;
  event_type: string;
  case_id: string;
  starting_after: string;
}

/** Webhook endpoints, their secrets, test events and delivery logs. Admins only. */
export function registerWebhooks(scope: FastifyInstance, deps: DashboardRouteDeps): void {
  const { ctx } = deps;
  const flashDeps = { secret: deps.secret, baseUrl: ctx.config.baseUrl };

  const listPage = async (request: FastifyRequest, reply: FastifyReply, form: { url: string; events: string[] }, errors: ErrorItem[] = [], status = 200) => {
    const tenant = tenantOf(request);
    const [endpoints, stats, listeners] = await Promise.all([listEndpointViews(ctx, { tenant }), recentDeliveryStats(ctx, tenant), listenerStates(ctx, tenant)]);
    const notice = errors.length === 0 ? takeFlash(reply, request, flashDeps) : undefined;
    const err = (id: string) => errors.find((e) => e.href === id)?.text;
    return sendDeveloperPage(request, reply, deps, {
      title: 'Webhooks',
      nav: 'webhooks',
      errors,
      status,
      body: (viewer) => html`<div class="page-header"><h1>Webhooks</h1></div>
        ${notice?.kind === 'notice' ? notification({ tone: 'success', role: 'status', children: html`<p>${notice.text}</p>` }) : null}
        ${!ctx.config.selfServeWebhooks
          ? notification({ tone: 'warning', title: 'Self-serve webhooks are disabled on this deployment', children: html`<p>Its operator registers endpoints; sessions are refused while this workspace has an enabled one.</p>` })
          : null}
        <section class="card card--flush" aria-labelledby="endpoints-heading">
          <h2 class="card__title card__title--inset" id="endpoints-heading">Endpoints (${tenant.environment})</h2>
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
        ${tenant.environment === 'test' ? html`<p class="muted">${LISTEN_HINT}</p>` : null}
        <section class="card" aria-labelledby="add-heading">
          <h2 class="card__title" id="add-heading">Add an endpoint</h2>
          <form method="post" action=${WEBHOOKS_PATH} novalidate>
            ${csrfField(viewer)}
            ${textInput({ id: 'endpoint-url', name: 'url', label: 'Endpoint URL', hint: ctx.config.allowPrivateNetwork ? 'An http or https URL.' : 'A public https URL, like https://hooks.example.com/dossier.', type: 'url', value: form.url, spellcheck: false, error: err('endpoint-url') })}
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
        </section>`,
    });
  };

  scope.get('/developers/webhooks', { config: { auth: 'admin' } }, async (request, reply) => listPage(request, reply, { url: '', events: [] }));

  scope.post('/developers/webhooks', { config: { auth: 'admin' } }, async (request, reply) => {
    const form = { url: formField(request.body, 'url').trim(), events: formFields(request.body, 'events') };
    const errors: ErrorItem[] = [];
    if (form.url === '') errors.push({ href: 'endpoint-url', text: 'Enter the URL of your receiver' });
    if (form.events.length === 0) errors.push({ href: 'endpoint-events', text: 'Choose at least one event, or all events' });
    if (errors.length > 0) return listPage(request, reply, form, errors, 400);
    const tenant = tenantOf(request);
    const created = await createEndpoint({ ...ctx, secret: deps.secret }, { tenant, url: form.url, events: form.events, selfServe: true });
    if (!created.ok) {
      const field = created.code === 'invalid_request' ? 'endpoint-events' : 'endpoint-url';
      return listPage(request, reply, form, [{ href: field, text: created.message }], created.code === 'self_serve_webhooks_disabled' ? 428 : 400);
    }
    setFlash(reply, request, flashDeps, { kind: 'endpoint_secret', endpoint_id: created.value.endpoint_id, signing_secret: created.value.signing_secret, rotated: false });
    return reply.redirect(endpointPath(created.value.endpoint_id), 303);
  });

  scope.get('/developers/webhooks/:endpoint_id', { config: { auth: 'admin' } }, async (request, reply) => {
    const { endpoint_id } = request.params as { endpoint_id: string };
    const tenant = tenantOf(request);
    const found = await getEndpoint(ctx, { tenant, endpointId: endpoint_id });
    if (!found.ok) return reply.callNotFound();
    const e = found.value;
    const listener = (await listenerStates(ctx, tenant)).get(e.endpoint_id);
    const q = request.query as Partial<Record<keyof LogFilters, string>>;
    const filters: LogFilters = { status: q.status ?? '', event_type: q.event_type ?? '', case_id: (q.case_id ?? '').trim(), starting_after: q.starting_after ?? '' };
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
    const flash = takeFlash(reply, request, flashDeps);
    const nextQuery = page.next_cursor
      ? new URLSearchParams({ ...(status ? { status } : {}), ...(eventType ? { event_type: eventType } : {}), ...(filters.case_id ? { case_id: filters.case_id } : {}), starting_after: page.next_cursor }).toString()
      : undefined;
    return sendDeveloperPage(request, reply, deps, {
      title: `Endpoint ${endpointName(e, listener)}`,
      nav: 'webhooks',
      body: (viewer) => html`${backLink(WEBHOOKS_PATH, 'Back to webhooks')}
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
            ${textInput({ id: 'filter-case', name: 'case_id', label: 'Case id', value: filters.case_id, spellcheck: false, width: 'w30' })}
            ${button({ text: 'Filter', variant: 'secondary' })}
          </form>
          ${!log.ok ? notification({ tone: 'warning', children: html`<p>${log.message}</p>` }) : null}
          ${table<DeliverySummary>({
            stack: true,
            caption: 'Deliveries to this endpoint, newest first',
            captionHidden: true,
            scrollRegion: true,
            rows: page.deliveries,
            empty: status || eventType || filters.case_id ? 'No deliveries match these filters.' : 'No deliveries yet. Send a test event: it is kept here with its attempt.',
            columns: [
              { header: 'Event', rowHeader: true, cell: (d) => html`<a href=${deliveryPath(e.endpoint_id, d.delivery_id)}><code>${d.event_type}</code><span class="visually-hidden"> delivery ${d.delivery_id}</span></a>` },
              { header: 'Status', cell: (d) => deliveryStatusTag(d.status) },
              { header: 'Attempts', numeric: true, cell: (d) => `${d.attempt_count} of ${d.max_attempts}` },
              { header: 'Last answer', cell: (d) => (d.last_status_code !== null ? String(d.last_status_code) : d.last_error ? html`<span class="muted">${d.last_error}</span>` : '—') },
              { header: 'Next attempt', cell: (d) => whenPrecise(d.next_attempt_at) },
              { header: 'Case', cell: (d) => (d.case_id ? html`<code>${d.case_id}</code>` : '—') },
              { header: 'Created', cell: (d) => whenPrecise(d.created_at) },
            ],
          })}
          ${nextQuery ? html`<nav class="pagination" aria-label="Delivery log pages"><a href=${`${endpointPath(e.endpoint_id)}?${nextQuery}`}>Older deliveries</a></nav>` : null}
        </section>`,
    });
  });

  scope.post('/developers/webhooks/:endpoint_id/test', { config: { auth: 'admin' } }, async (request, reply) => {
    const { endpoint_id } = request.params as { endpoint_id: string };
    const tenant = tenantOf(request);
    const target = await currentSigningSecret({ ...ctx, secret: deps.secret }, { tenant, endpointId: endpoint_id });
    if (!target.ok) return reply.callNotFound();
    if ((await listenerStates(ctx, tenant)).has(endpoint_id)) {
      // The server never connects to a listener's URL: the test is queued for the listen stream, like any delivery.
      const queued = await queueTestDelivery(ctx, { tenant, endpointId: endpoint_id, traceId: String(request.id) });
      if (queued.ok) ctx.wake.notify('webhook-deliveries');
      setFlash(reply, request, flashDeps, { kind: 'notice', text: queued.ok ? 'Test event queued for dossier listen: it appears in the delivery log below.' : queued.message });
      return reply.redirect(endpointPath(endpoint_id), 303);
    }
    const sent = await sendTestWebhook(
      // The same client as POST /api/v1/webhooks/test and the delivery worker.
      { ...ctx, secret: deps.secret, http: ctx.outbound.webhooks },
      {
        orgId: tenant.orgId,
        environment: tenant.environment,
        endpointUrl: target.value.url,
        signingSecret: target.value.secret,
        traceId: String(request.id),
        userAgent: WEBHOOK_USER_AGENT,
        endpointId: endpoint_id,
      },
    );
    if (!sent.ok) {
      setFlash(reply, request, flashDeps, { kind: 'test_sent', endpoint_id, success: false, status_code: null, duration_ms: 0, error: sent.message });
    } else {
      const r = sent.value;
      setFlash(reply, request, flashDeps, { kind: 'test_sent', endpoint_id, success: r.success, status_code: r.status_code, duration_ms: r.duration_ms, ...(r.error ? { error: r.error } : {}) });
    }
    return reply.redirect(endpointPath(endpoint_id), 303);
  });

  scope.get('/developers/webhooks/:endpoint_id/rotate', { config: { auth: 'admin' } }, async (request, reply) => {
    const { endpoint_id } = request.params as { endpoint_id: string };
    const found = await getEndpoint(ctx, { tenant: tenantOf(request), endpointId: endpoint_id });
    if (!found.ok) return reply.callNotFound();
    return sendDeveloperPage(request, reply, deps, {
      title: 'Rotate signing secret',
      nav: 'webhooks',
      body: (viewer: DashboardViewer) => html`${backLink(endpointPath(endpoint_id), 'Back to the endpoint')}
        <div class="card">
          <h1>Rotate the signing secret?</h1>
          <p>A new secret is made and shown once. For 24 hours every delivery to <code class="break">${found.value.url}</code> is signed with both the old and the new secret, so you can deploy the new one to your receiver without missing a delivery.</p>
          <form method="post" action=${`${endpointPath(endpoint_id)}/rotate`}>
            ${csrfField(viewer)}
            <div class="button-group">${button({ text: 'Rotate secret', data: { 'prevent-double-submit': '' } })}<a href=${endpointPath(endpoint_id)}>Cancel</a></div>
          </form>
        </div>`,
    });
  });

  scope.post('/developers/webhooks/:endpoint_id/rotate', { config: { auth: 'admin' } }, async (request, reply) => {
    const { endpoint_id } = request.params as { endpoint_id: string };
    const rotated = await rotateEndpointSecret({ ...ctx, secret: deps.secret }, { tenant: tenantOf(request), endpointId: endpoint_id });
    if (!rotated.ok) return reply.callNotFound();
    setFlash(reply, request, flashDeps, { kind: 'endpoint_secret', endpoint_id, signing_secret: rotated.value.signing_secret, rotated: true });
    return reply.redirect(endpointPath(endpoint_id), 303);
  });

  for (const action of ['disable', 'enable'] as const) {
    scope.post(`/developers/webhooks/:endpoint_id/${action}`, { config: { auth: 'admin' } }, async (request, reply) => {
      const { endpoint_id } = request.params as { endpoint_id: string };
      const changed = await (action === 'disable' ? disableEndpointById : enableEndpointById)(ctx, { tenant: tenantOf(request), endpointId: endpoint_id });
      if (!changed.ok) return reply.callNotFound();
      setFlash(reply, request, flashDeps, { kind: 'notice', text: action === 'disable' ? 'The endpoint is disabled: it receives no new deliveries.' : 'The endpoint is enabled.' });
      return reply.redirect(endpointPath(endpoint_id), 303);
    });
  }

  scope.get('/developers/webhooks/:endpoint_id/deliveries/:delivery_id', { config: { auth: 'admin' } }, async (request, reply) => {
    const { endpoint_id, delivery_id } = request.params as { endpoint_id: string; delivery_id: string };
    const tenant = tenantOf(request);
    const found = await getDeliveryDetail(ctx, { orgId: tenant.orgId, environment: tenant.environment, deliveryId: delivery_id });
    if (!found.ok || found.value.endpoint_id !== endpoint_id) return reply.callNotFound();
    const d = found.value;
    const flash = takeFlash(reply, request, flashDeps);
    const sent = await sentRequestOf({ ...ctx, secret: deps.secret }, { orgId: tenant.orgId, environment: tenant.environment, deliveryId: delivery_id });
    if (!sent.ok) return reply.callNotFound();
    const body = sent.value.body;
    const headers = sent.value.headers;
    return sendDeveloperPage(request, reply, deps, {
      title: `Delivery ${d.delivery_id}`,
      nav: 'webhooks',
      body: (viewer) => html`${backLink(endpointPath(endpoint_id), 'Back to the delivery log')}
        <div class="page-header"><h1>Delivery <code class="break">${d.delivery_id}</code></h1>${deliveryStatusTag(d.status)}</div>
        ${flash?.kind === 'notice' ? notification({ tone: 'success', role: 'status', children: html`<p>${flash.text}</p>` }) : null}
        <section class="card" aria-labelledby="delivery-heading">
          <h2 class="card__title" id="delivery-heading">Summary</h2>
          ${summaryList([
            { key: 'Event', value: html`<code>${d.event_type}</code>` },
            { key: 'Status', value: STATUS_TEXT[d.status].text },
            { key: 'Attempts', value: `${d.attempt_count} of ${d.max_attempts}` },
            { key: 'Next attempt', value: whenPrecise(d.next_attempt_at, 'None scheduled') },
            { key: 'Case', value: d.case_id ? html`<code>${d.case_id}</code>` : 'None' },
            { key: 'Created', value: whenPrecise(d.created_at) },
            ...(d.delivered_at ? [{ key: 'Delivered', value: whenPrecise(d.delivered_at) }] : []),
            ...(d.failed_at ? [{ key: 'Failed', value: whenPrecise(d.failed_at) }] : []),
          ])}
          ${d.status === 'failed'
            ? html`<form method="post" action=${`${deliveryPath(endpoint_id, d.delivery_id)}/retry`}>
                ${csrfField(viewer)}
                <p>Retrying sends the same body with the same delivery id, with a fresh budget of ${d.max_attempts} attempts.</p>
                ${button({ text: 'Retry delivery', data: { 'prevent-double-submit': '' } })}
              </form>`
            : null}
        </section>
        <section class="card card--flush" aria-labelledby="attempts-heading">
          <h2 class="card__title card__title--inset" id="attempts-heading">Attempts</h2>
          ${table({
            stack: true,
            caption: 'Attempts, oldest first',
            captionHidden: true,
            scrollRegion: true,
            rows: d.attempts,
            empty: 'No attempt yet.',
            columns: [
              { header: 'Attempt', rowHeader: true, numeric: true, cell: (a) => String(a.attempt_number) },
              { header: 'Time', cell: (a) => whenPrecise(a.attempted_at) },
              { header: 'Status code', numeric: true, cell: (a) => (a.status_code === null ? 'None' : String(a.status_code)) },
              { header: 'Duration', numeric: true, cell: (a) => `${a.duration_ms} ms` },
              { header: 'Error', cell: (a) => a.error ?? '—' },
              { header: 'Response', cell: (a) => (a.response_excerpt ? html`<pre class="excerpt">${a.response_excerpt}</pre>` : '—') },
            ],
          })}
        </section>
        <section class="card" aria-labelledby="request-heading">
          <h2 class="card__title" id="request-heading">Request as sent</h2>
          <p class="muted small">Every attempt sends the same body; each is signed afresh with its own timestamp (the last attempt's headers are shown).</p>
          ${headers === null
            ? html`<p>Not sent yet: no attempt has been made.</p>`
            : html`${sent.value.signaturesKnown ? null : html`<p>The endpoint's signing secret has been rotated since this attempt, so its signatures can no longer be shown.</p>`}
              ${table({
                stack: true,
                caption: 'Request headers',
                scrollRegion: true,
                rows: headers,
                columns: [
                  { header: 'Header', rowHeader: true, cell: (h) => html`<code>${h[0]}</code>` },
                  { header: 'Value', cell: (h) => html`<code class="break">${h[1]}</code>` },
                ],
              })}`}
          <h3>Body</h3>
          <p class="muted small">Byte for byte as sent and signed.</p>
          <pre tabindex="0" aria-label="Request body">${body}</pre>
        </section>
        ${details('What the receiver should do', html`<p>Verify the signature, answer 2xx quickly, deduplicate by <code>delivery_id</code>, then read the case for its current state.</p>`)}`,
    });
  });

  scope.post('/developers/webhooks/:endpoint_id/deliveries/:delivery_id/retry', { config: { auth: 'admin' } }, async (request, reply) => {
    const { endpoint_id, delivery_id } = request.params as { endpoint_id: string; delivery_id: string };
    const tenant = tenantOf(request);
    const found = await getDeliveryDetail(ctx, { orgId: tenant.orgId, environment: tenant.environment, deliveryId: delivery_id });
    if (!found.ok || found.value.endpoint_id !== endpoint_id) return reply.callNotFound();
    // The same rules as POST /api/v1/webhooks/deliveries/{id}/retry: only a failed delivery.
    const retried = await retryDelivery(ctx, { orgId: tenant.orgId, environment: tenant.environment, deliveryId: delivery_id });
    if (retried.ok) ctx.wake.notify('webhook-deliveries');
    setFlash(reply, request, flashDeps, { kind: 'notice', text: retried.ok ? 'The delivery is queued again.' : retried.message });
    return reply.redirect(deliveryPath(endpoint_id, delivery_id), 303);
  });
}
