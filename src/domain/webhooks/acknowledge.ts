import type { Environment } from '../../config.ts';
import type { Deps } from '../deps.ts';
import { appendCaseEvent } from '../../storage/case-events.ts';
import type { Tx } from '../../storage/schema.ts';
import { inTransactionResult } from '../../storage/unit-of-work.ts';
import { lockDelivery, markDeliveryAcknowledged } from '../../storage/webhooks/deliveries.ts';
import { moveHandoff } from '../../storage/webhooks/handoff.ts';
import { fail, ok, type Result } from '../errors.ts';
import { runIdempotent } from '../idempotency/idempotency.ts';
import { CASE_COMPLETED } from './event-types.ts';

export interface AcknowledgementInput {
  orgId: string;
  environment: Environment;
  deliveryId: string;
  /** `acknowledgement_id` from the body, else the Idempotency-Key header; null when neither was sent. */
  acknowledgementId: string | null;
}

export interface Acknowledgement {
  acknowledged: true;
  already_acknowledged: boolean;
  delivery_id: string;
  case_id: string;
  handoff_state: 'acknowledged';
  /** Present (true) when the answer replays an earlier request with the same acknowledgement id. */
  idempotent_replay?: true;
}

const OPERATION = 'webhook_delivery.ack';

/**
 * Spec §4.7: records that the customer's system received a decision-ready handoff. The delivery
 * must be a delivered v1.case.completed delivery; the case's handoff becomes `acknowledged` and
 * its log gains `handoff.acknowledged`. Acknowledging again is harmless and says
 * `already_acknowledged: true`.
 *
 * With an acknowledgement id the call is idempotent under contract §5: the same id for the same
 * delivery replays the first answer (marked `idempotent_replay`, and necessarily
 * `already_acknowledged` by then); the same id for another delivery is `idempotency_key_conflict`.
 */
export async function acknowledgeDelivery(
  deps: Pick<Deps, 'db' | 'clock' | 'ids'> & { secret: string },
  input: AcknowledgementInput,
): Promise<Result<Acknowledgement>> {
  const now = deps.clock.now();
  return inTransactionResult(deps.db, async (tx) => {
    if (input.acknowledgementId === null) return acknowledgeIn(tx, deps, input, now);
    const answered = await runIdempotent(
      tx,
      { secret: deps.secret, now },
      { orgId: input.orgId, environment: input.environment, operation: OPERATION, key: input.acknowledgementId, body: { delivery_id: input.deliveryId } },
      async () => {
        // A failure rolls back the claimed key with everything else: a refused request stores nothing.
        const acknowledged = await acknowledgeIn(tx, deps, input, now);
        return acknowledged.ok ? ok({ status: 200, body: { ...acknowledged.value } }) : acknowledged;
      },
    );
    if (!answered.ok) return answered;
    const body = answered.value.body as unknown as Acknowledgement;
    return ok(answered.value.replay ? { ...body, already_acknowledged: true, idempotent_replay: true } : body);
  });
}

async function acknowledgeIn(
  tx: Tx,
  deps: Pick<Deps, 'ids'>,
  input: AcknowledgementInput,
  now: Date,
): Promise<Result<Acknowledgement>> {
  const delivery = await lockDelivery(tx, input, input.deliveryId);
  if (!delivery || delivery.case_id === null) return fail('not_found', `No webhook delivery ${input.deliveryId}.`);
  if (delivery.event_type !== CASE_COMPLETED) {
    return fail('invalid_request', `Only ${CASE_COMPLETED} deliveries carry a handoff to acknowledge; delivery ${input.deliveryId} is ${delivery.event_type}.`);
  }
  if (delivery.status !== 'delivered') {
    return fail(
      'webhook_delivery_not_delivered',
      `Delivery ${input.deliveryId} has not been delivered successfully yet (status ${delivery.status}); acknowledge it once your endpoint has received it.`,
    );
  }
  const answer = { acknowledged: true as const, delivery_id: delivery.delivery_id, case_id: delivery.case_id, handoff_state: 'acknowledged' as const };
  const caseRef = { orgId: input.orgId, environment: input.environment, caseId: delivery.case_id };
  const moved = await moveHandoff(tx, caseRef, { to: 'acknowledged', from: [null, 'dispatching', 'delivered', 'dispatch_failed'], deliveryId: delivery.delivery_id, now });
  if (!moved) return ok({ ...answer, already_acknowledged: true });
  await markDeliveryAcknowledged(tx, input, delivery.delivery_id, input.acknowledgementId, now);
  await appendCaseEvent(tx, {
    eventId: deps.ids.next('evt'),
    caseId: delivery.case_id,
    orgId: input.orgId,
    environment: input.environment,
    eventType: 'handoff.acknowledged',
    data: { delivery_id: delivery.delivery_id, acknowledgement_id: input.acknowledgementId },
    createdAt: now,
  });
  return ok({ ...answer, already_acknowledged: false });
}
