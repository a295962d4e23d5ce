import type { Deps } from '../deps.ts';
import type { Tx } from '../../storage/schema.ts';
import { insertDeliveries, notifyDeliveriesQueued } from '../../storage/webhooks/deliveries.ts';
import { subscribedEndpointIds } from '../../storage/webhooks/endpoints.ts';
import { moveHandoff } from '../../storage/webhooks/handoff.ts';
import { insertNotification } from '../../storage/webhooks/notifications.ts';
import { buildEnvelope, type WebhookEventInput } from './envelope.ts';
import { CASE_COMPLETED } from './event-types.ts';

export type { WebhookEventInput } from './envelope.ts';

/**
 * The transactional outbox: one delivery per enabled endpoint subscribed to the event, written in
 * the caller's transaction, so the change, its case event and its deliveries commit together or
 * not at all. Each delivery's body is fixed here and sent byte for byte on every attempt.
 *
 * A `v1.case.completed` event also starts the case's handoff: `dispatching`, pointing at the
 * first delivery. With no endpoint subscribed the handoff cannot happen at all, so it is
 * `dispatch_failed` at once and the workspace gets an integration notification saying why: an
 * integrator waiting for the handoff learns it will not come instead of waiting for ever.
 *
 * The NOTIFY issued here reaches delivery workers in every process when the transaction commits
 * (and never if it rolls back).
 */
export async function enqueueWebhookEvent(
  tx: Tx,
  deps: Pick<Deps, 'clock' | 'ids'>,
  event: WebhookEventInput,
): Promise<{ deliveryIds: string[] }> {
  const endpointIds = await subscribedEndpointIds(tx, event, event.eventType);
  const now = deps.clock.now();
  const deliveries = endpointIds.map((endpointId) => {
    const deliveryId = deps.ids.next('dlv');
    return {
      delivery_id: deliveryId,
      org_id: event.orgId,
      environment: event.environment,
      endpoint_id: endpointId,
      event_id: event.eventId,
      event_type: event.eventType,
      case_id: event.caseId,
      payload: JSON.stringify(buildEnvelope(event, deliveryId, now)),
      status: 'pending' as const,
      attempt_count: 0,
      total_attempts: 0,
      next_attempt_at: now,
      created_at: now,
      updated_at: now,
    };
  });
  await insertDeliveries(tx, deliveries);
  if (deliveries.length > 0) await notifyDeliveriesQueued(tx);

  if (event.eventType === CASE_COMPLETED) {
    const ref = { orgId: event.orgId, environment: event.environment, caseId: event.caseId };
    const first = deliveries[0];
    const open = [null, 'dispatching', 'delivered', 'dispatch_failed'] as const;
    if (first) {
      await moveHandoff(tx, ref, { to: 'dispatching', from: open, deliveryId: first.delivery_id, now, touch: false });
    } else {
      await moveHandoff(tx, ref, { to: 'dispatch_failed', from: open, now, touch: false });
      await insertNotification(tx, {
        notification_id: deps.ids.next('ntf'),
        org_id: event.orgId,
        environment: event.environment,
        kind: 'webhook_no_endpoint',
        message: `Case ${event.caseId} completed, but no enabled webhook endpoint is subscribed to ${CASE_COMPLETED}: its handoff was not dispatched. Add an endpoint, then read the case or its package.`,
        data: { case_id: event.caseId, event_id: event.eventId, event_type: event.eventType },
        created_at: now,
      });
    }
  }
  return { deliveryIds: deliveries.map((d) => d.delivery_id) };
}
