import type { Deps } from '../deps.ts';
import type { Tx } from '../../storage/schema.ts';
import { caseHasLiveHandoffDeliveryUnscoped, recordAttemptOutcomesUnscoped, type ClaimedDelivery, type LeaseHolder, type RecordedAttempt } from '../../storage/webhooks/deliveries.ts';
import { inTransaction } from '../../storage/unit-of-work.ts';
import { moveHandoff } from '../../storage/webhooks/handoff.ts';
import { insertNotification } from '../../storage/webhooks/notifications.ts';
import type { WebhookEnvelope } from './envelope.ts';
import { CASE_COMPLETED, DELIVERY_FAILED } from './event-types.ts';
import { enqueueWebhookEvent } from './outbox.ts';
import { decideAfterAttempt, type AttemptDecision as ScheduledDecision } from '../retry-schedule.ts';

/**
 * Spec §3.2 (retry-schedule.ts decides it): a 2xx delivers; a failed attempt with budget left is
 * retried after the delay for its position (60 s after the first, 5 min after the second, …; five
 * attempts in all, contract §8); the last failed attempt fails the delivery.
 */
export type AttemptDecision = ScheduledDecision<'delivered'>;

/** Whether recording this outcome has consequences beyond the delivery row (and so needs its own transaction). */
export function hasSideEffects(delivery: Pick<ClaimedDelivery, 'event_type'>, decision: AttemptDecision): boolean {
  return decision.status === 'failed' || (decision.status === 'delivered' && delivery.event_type === CASE_COMPLETED);
}

/** What one attempt came to, however it was made (the worker's POST, or `dossier listen`'s on the developer's machine). */
export interface AttemptResult {
  /** A 2xx answer. */
  ok: boolean;
  /** The receiver's HTTP status; null when there was no HTTP answer. */
  statusCode: number | null;
  durationMs: number;
  /** Why it failed; null on success. */
  error: string | null;
  /** The first 4 KiB of the receiver's answer. */
  responseExcerpt: string | null;
}

/** One attempt's result, decided (spec §3.2) and shaped as the row it is recorded as. */
export function outcomeOfAttempt(
  deps: Pick<Deps, 'clock' | 'config'>,
  input: { delivery: ClaimedDelivery; attemptedAt: Date; result: AttemptResult },
): { decision: AttemptDecision; record: RecordedAttempt } {
  const { delivery, result } = input;
  const decision = decideAfterAttempt({
    attemptCountBefore: delivery.attempt_count,
    succeeded: result.ok,
    succeededAs: 'delivered',
    now: deps.clock.now(),
    retryDelaysSeconds: deps.config.webhookRetryDelaysSeconds,
  });
  const record: RecordedAttempt = {
    delivery_id: delivery.delivery_id,
    attempt_number: delivery.total_attempts + 1,
    attempted_at: input.attemptedAt,
    status_code: result.statusCode,
    duration_ms: Math.max(0, Math.round(result.durationMs)),
    error: result.ok ? null : result.error,
    response_excerpt: result.responseExcerpt,
    status: decision.status,
    attempt_count: decision.attemptCount,
    next_attempt_at: decision.nextAttemptAt,
  };
  return { decision, record };
}

/**
 * Records one outcome with its consequences in one transaction, guarded by the lease
 * (`recordAttemptOutcomesUnscoped`: `locked_by` for a row lease, the attempt count for both):
 * the delivery worker's path for outcomes with side effects, and
 * `dossier listen`'s for every result. Returns whether it was recorded (false: the lease had run
 * out and the delivery was taken over, so this late outcome does not count).
 */
export async function recordAttemptOutcome(
  deps: Pick<Deps, 'db' | 'clock' | 'ids'>,
  input: { holder: LeaseHolder; delivery: ClaimedDelivery; decision: AttemptDecision; record: RecordedAttempt },
): Promise<boolean> {
  return inTransaction(deps.db, async (tx) => {
    const recorded = await recordAttemptOutcomesUnscoped(tx, input.holder, [input.record], deps.clock.now());
    if (recorded.length !== 1) return false;
    if (hasSideEffects(input.delivery, input.decision)) {
      await applyAttemptEffects({ ...deps, db: tx }, { delivery: input.delivery, decision: input.decision, attempt: { statusCode: input.record.status_code, error: input.record.error } });
    }
    return true;
  });
}

export interface AttemptSummary {
  statusCode: number | null;
  error: string | null;
}

/**
 * What a recorded outcome sets off, in the same transaction as the record:
 * - the first 2xx of a case.completed delivery: handoff `delivered` (an acknowledged one stays so);
 * - the final failure (spec §6.2.5): `v1.webhook.delivery_failed` to the endpoints subscribed to it
 *   (never about a delivery that was itself one, so failures cannot cascade), an integration
 *   notification, and for a case.completed delivery handoff `dispatch_failed` — unless another
 *   endpoint's delivery of the same handoff is delivered or still trying.
 */
export async function applyAttemptEffects(
  deps: Pick<Deps, 'clock' | 'ids'> & { db: Tx },
  input: { delivery: ClaimedDelivery; decision: AttemptDecision; attempt: AttemptSummary },
): Promise<void> {
  const { delivery, decision, attempt } = input;
  const tx = deps.db;
  const now = deps.clock.now();
  const caseRef = delivery.case_id === null ? undefined : { orgId: delivery.org_id, environment: delivery.environment, caseId: delivery.case_id };
  if (decision.status === 'delivered') {
    if (caseRef && delivery.event_type === CASE_COMPLETED) {
      await moveHandoff(tx, caseRef, { to: 'delivered', from: ['dispatching', 'dispatch_failed'], deliveryId: delivery.delivery_id, now });
    }
    return;
  }
  if (decision.status !== 'failed') return;

  const envelope = JSON.parse(delivery.payload) as WebhookEnvelope;
  const failure = {
    delivery_id: delivery.delivery_id,
    endpoint_id: delivery.endpoint_id,
    endpoint_url: delivery.url,
    event_id: delivery.event_id,
    event_type: delivery.event_type,
    attempts: decision.attemptCount,
    last_status_code: attempt.statusCode,
    last_error: attempt.error,
  };
  if (delivery.event_type !== DELIVERY_FAILED && delivery.case_id !== null) {
    await enqueueWebhookEvent(tx, deps, {
      orgId: delivery.org_id,
      environment: delivery.environment,
      eventType: DELIVERY_FAILED,
      eventId: deps.ids.next('evt'),
      caseId: delivery.case_id,
      sessionId: envelope.session_id,
      externalCaseId: envelope.external_case_id,
      externalApplicantId: envelope.external_applicant_id,
      externalCustomerId: envelope.external_customer_id,
      // Its own event with its own key: one per failed delivery, so the key is not the original's.
      idempotencyKey: null,
      traceId: envelope.trace_id,
      occurredAt: now,
      data: failure,
    });
  }
  await insertNotification(tx, {
    notification_id: deps.ids.next('ntf'),
    org_id: delivery.org_id,
    environment: delivery.environment,
    kind: 'webhook_delivery_failed',
    message: `Delivery ${delivery.delivery_id} of ${delivery.event_type} to ${delivery.url} failed after ${decision.attemptCount} attempts${
      attempt.error ? ` (last: ${attempt.error})` : ''
    }. Fix the endpoint, then retry the delivery.`,
    data: { ...failure, case_id: delivery.case_id },
    created_at: now,
  });
  if (caseRef && delivery.event_type === CASE_COMPLETED && !(await caseHasLiveHandoffDeliveryUnscoped(tx, caseRef.caseId, delivery.delivery_id))) {
    await moveHandoff(tx, caseRef, { to: 'dispatch_failed', from: ['dispatching'], now });
  }
}
