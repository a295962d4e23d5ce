import type { CaseRecord } from '../../../domain/cases/case-record.ts';
import type { HandoffDelivery } from '../../../domain/console/case-view.ts';
import { html, type Markup } from '../../render.ts';
import type { DashboardViewer } from '../context.ts';
import { deliveryPath } from '../developers/webhooks/views.ts';
import { timeText } from './format.ts';

type Handoff = NonNullable<CaseRecord['handoff']>;

const at = (iso: string) => html`<time datetime=${iso}>${timeText(iso)}</time>`;
const attempts = (n: number) => `${n} attempt${n === 1 ? '' : 's'}`;

/** The receiver's last answer, in words: "it answered 500", or nothing when no attempt got one. */
function lastAnswer(d: HandoffDelivery): string {
  return d.lastStatusCode !== null ? ` · the last attempt was answered ${d.lastStatusCode}` : '';
}

/** Where the handoff stands, as a sentence: its delivery's progress, or the handoff's state when the delivery is no longer kept. */
function handoffSentence(handoff: Handoff, d: HandoffDelivery | null): Markup {
  const url = d ? html`<span class="break">${d.endpointUrl}</span>` : null;
  if (handoff.handoff_state === 'acknowledged' || handoff.acknowledged_at) {
    const ack = handoff.acknowledged_at ? html`Acknowledged at ${at(handoff.acknowledged_at)}` : 'Acknowledged';
    return d?.deliveredAt ? html`${ack} · delivered to ${url} at ${at(d.deliveredAt)}` : ack;
  }
  if (!d) {
    const text = {
      dispatching: 'Being delivered to your system',
      delivered: 'Delivered to your system · waiting for acknowledgement',
      dispatch_failed: 'Delivery to your system failed',
    }[handoff.handoff_state];
    return html`${text} <span class="muted">(the delivery’s record is no longer kept)</span>`;
  }
  switch (d.status) {
    case 'delivered':
      return html`Delivered to ${url}${d.deliveredAt ? html` at ${at(d.deliveredAt)}` : null} · waiting for acknowledgement`;
    case 'failed':
      return html`<strong>Delivery to ${url} failed after ${attempts(d.attemptCount)}</strong>${lastAnswer(d)}`;
    case 'pending':
    case 'retry_scheduled': {
      const next = Math.min(d.attemptCount + 1, d.maxAttempts);
      return html`Being delivered to ${url} (attempt ${next} of ${d.maxAttempts}${d.nextAttemptAt && d.attemptCount > 0 ? html`, next try at ${at(d.nextAttemptAt)}` : null})${lastAnswer(d)}`;
    }
  }
}

/**
 * The case page's handoff row (issue 27 §4): where the handoff stands in words, and for admins a
 * link to its delivery in developer settings (reviewers cannot open those pages, so they get the
 * delivery's id to quote instead).
 */
export function handoffValue(viewer: DashboardViewer, handoff: Handoff, d: HandoffDelivery | null): Markup {
  const link = d
    ? viewer.role === 'admin'
      ? html` <a href=${deliveryPath(d.endpointId, d.deliveryId)}>View the delivery<span class="visually-hidden"> ${d.deliveryId}</span></a>`
      : html` <span class="muted small">(delivery <span class="mono">${d.deliveryId}</span>)</span>`
    : null;
  return html`<span class="handoff">${handoffSentence(handoff, d)}${link}</span>`;
}
