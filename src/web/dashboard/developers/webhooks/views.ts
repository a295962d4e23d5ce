import type { EndpointView } from '../../../../domain/webhooks/endpoints.ts';
import type { ListenerState } from '../../../../domain/webhooks/listeners.ts';
import type { DeliveryStatus } from '../../../../storage/tables/webhooks.ts';
import { html, type Markup } from '../../../render.ts';
import { tag, type Tone } from '../../../ui/components.ts';

/** What the webhook pages share: their addresses, and how an endpoint, its events and a delivery's status read. */
export const WEBHOOKS_PATH = '/dashboard/developers/webhooks';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'retry_scheduled', 'delivered', 'failed'];
export const STATUS_TEXT: Record<DeliveryStatus, { text: string; tone: Tone }> = {
  pending: { text: 'Pending', tone: 'info' },
  retry_scheduled: { text: 'Retry scheduled', tone: 'warning' },
  delivered: { text: 'Delivered', tone: 'success' },
  failed: { text: 'Failed', tone: 'danger' },
};

export const endpointPath = (id: string) => `${WEBHOOKS_PATH}/${id}`;
export const deliveryPath = (endpointId: string, deliveryId: string) => `${endpointPath(endpointId)}/deliveries/${deliveryId}`;

export function eventsText(events: readonly string[]): Markup {
  return events.includes('*') ? 'All events' : html`<ul class="plain-list">${events.map((e) => html`<li><code>${e}</code></li>`)}</ul>`;
}

export function endpointStatus(e: EndpointView, listener?: ListenerState) {
  if (!e.enabled) return tag('Disabled', 'neutral');
  if (listener) return listener.connected ? tag('Connected', 'success') : tag('Not connected', 'warning');
  return tag('Enabled', 'success');
}

/** A `dossier listen` listener is an endpoint of its own kind: named as such, its URL being where the CLI forwards. */
export function endpointName(e: EndpointView, listener?: ListenerState): string {
  return listener ? `CLI listener → ${e.url}` : e.url;
}

export function deliveryStatusTag(status: DeliveryStatus) {
  const s = STATUS_TEXT[status];
  return tag(s.text, s.tone);
}
