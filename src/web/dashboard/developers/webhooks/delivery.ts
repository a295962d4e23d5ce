import { z } from 'zod';
import { getDeliveryDetail, type DeliveryDetail } from '../../../../domain/webhooks/delivery-log.ts';
import { sentRequestOf, type SentRequest } from '../../../../domain/webhooks/sent-request.ts';
import { html, type Markup } from '../../../render.ts';
import { backLink, button, details, notification, summaryList, table } from '../../../ui/components.ts';
import { tenantOf, type DashboardViewer } from '../../context.ts';
import { csrfField } from '../../layout.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, takeFlash, type Flash } from '../flash.ts';
import { whenPrecise } from '../format.ts';
import { indentedJson } from './json-body.ts';
import { sendDeveloperPage } from '../shell.ts';
import { deliveryPath, deliveryStatusTag, endpointPath, STATUS_TEXT } from './views.ts';

interface DeliveryViewProps {
  endpointId: string;
  delivery: DeliveryDetail;
  flash: Flash | undefined;
  /** The request as sent: its body, and the last attempt's headers. */
  sent: SentRequest;
}

/**
 * The body as sent: indented for reading when it is JSON (as it is otherwise), and the exact bytes
 * that were signed, to copy (a button the script shows) or to read without script (the details).
 * The textarea's content starts with a newline the HTML parser drops, so a body's own first
 * character survives whatever it is.
 */
function bodyView(body: string): Markup {
  const indented = indentedJson(body);
  return html`<h3>Body</h3>
    <p class="muted small">${indented === null ? 'Byte for byte as sent and signed.' : 'Indented for reading. The bytes sent and signed are below, as they were.'}</p>
    <pre class="request-body" tabindex="0" aria-label=${indented === null ? 'Request body' : 'Request body, indented'}>${indented ?? body}</pre>
    <div class="copy-raw">
      <button type="button" class="button button--secondary button--small" data-copy-raw="raw-body" hidden>Copy raw body</button>
      <span class="copy-raw__status" id="raw-body-copied" role="status" aria-live="polite"></span>
    </div>
    <details class="details">
      <summary>Raw body, as signed</summary>
      <div class="details__body">
        <textarea id="raw-body" class="textarea raw-body" readonly rows="6" spellcheck="false" aria-label="Raw body, as signed">${`\n${body}`}</textarea>
      </div>
    </details>`;
}

/** One delivery: its summary (with a retry when it failed), every attempt, and the request as sent. */
function deliveryView({ endpointId, delivery: d, flash, sent }: DeliveryViewProps, viewer: DashboardViewer): Markup {
  const { body, headers } = sent;
  return html`${backLink(endpointPath(endpointId), 'Back to the delivery log')}
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
        ? html`<form method="post" action=${`${deliveryPath(endpointId, d.delivery_id)}/retry`}>
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
        : html`${sent.signaturesKnown ? null : html`<p>The endpoint's signing secret has been rotated since this attempt, so its signatures can no longer be shown.</p>`}
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
      ${bodyView(body)}
    </section>
    ${details('What the receiver should do', html`<p>Verify the signature, answer 2xx quickly, deduplicate by <code>delivery_id</code>, then read the case for its current state.</p>`)}`;
}

/** GET /dashboard/developers/webhooks/{endpoint_id}/deliveries/{delivery_id}: a delivery of this endpoint, with its attempts. Admins only. */
export const deliveryPage = dashboardRoute({
  method: 'GET',
  url: '/developers/webhooks/:endpoint_id/deliveries/:delivery_id',
  auth: 'admin',
  params: z.object({ endpoint_id: z.string(), delivery_id: z.string() }),
  handler: async ({ request, reply, params, deps }) => {
    const { endpoint_id, delivery_id } = params;
    const tenant = tenantOf(request);
    const found = await getDeliveryDetail(deps.ctx, { orgId: tenant.orgId, environment: tenant.environment, deliveryId: delivery_id });
    if (!found.ok || found.value.endpoint_id !== endpoint_id) return reply.callNotFound();
    const d = found.value;
    const flash = takeFlash(reply, request, flashDeps(deps));
    const sent = await sentRequestOf({ ...deps.ctx, secret: deps.secret }, { orgId: tenant.orgId, environment: tenant.environment, deliveryId: delivery_id });
    if (!sent.ok) return reply.callNotFound();
    const props: DeliveryViewProps = { endpointId: endpoint_id, delivery: d, flash, sent: sent.value };
    return sendDeveloperPage(request, reply, deps, {
      title: `Delivery ${d.delivery_id}`,
      nav: 'webhooks',
      body: (viewer) => deliveryView(props, viewer),
    });
  },
});
