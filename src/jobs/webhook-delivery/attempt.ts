import type { AppContext } from '../../domain/deps.ts';
import { outcomeOfAttempt, type AttemptDecision } from '../../domain/webhooks/attempt-outcome.ts';
import { deliveryHeaders } from '../../domain/webhooks/sent-request.ts';
import { signAttemptWithKeys } from '../../domain/webhooks/signature.ts';
import type { FetchResult, OutboundHttp } from '../../net/safe-fetch.ts';
import type { ClaimedDelivery, RecordedAttempt } from '../../storage/webhooks/deliveries.ts';
import type { SigningSecretCache } from './secret-cache.ts';

/** One attempt's result: what to record, and what follows from it (retry, failed, delivered). */
export interface AttemptOutcome {
  delivery: ClaimedDelivery;
  decision: AttemptDecision;
  record: RecordedAttempt;
}

/** What the worker records for a listener's delivery it claimed: no stream was open to take it. */
export const NO_LISTENER_CONNECTED = 'no `dossier listen` connected';

/**
 * Sends one leased delivery, signed afresh, and decides what follows. A disabled endpoint is not
 * sent to: the attempt counts as a connection failure, so its deliveries still end. Nor is a
 * listener (the worker claims its deliveries only while no `dossier listen` stream is open): the
 * attempt fails without a packet sent, and is retried on the schedule like any other.
 */
export async function attemptDelivery(
  ctx: Pick<AppContext, 'clock' | 'config' | 'metrics' | 'secret'>,
  tools: { http: OutboundHttp; secrets: SigningSecretCache },
  delivery: ClaimedDelivery,
): Promise<AttemptOutcome> {
  const attemptedAt = ctx.clock.now();
  let result: FetchResult;
  if (!delivery.enabled) {
    result = { ok: false, reason: 'connection_failed', message: 'endpoint disabled: not sent', durationMs: 0 };
  } else if (delivery.kind === 'listener') {
    result = { ok: false, reason: 'connection_failed', message: NO_LISTENER_CONNECTED, durationMs: 0 };
  } else {
    const keys = tools.secrets.get(ctx, delivery, attemptedAt);
    result = await tools.http.fetch({
      url: delivery.url,
      method: 'POST',
      headers: deliveryHeaders(signAttemptWithKeys(keys, delivery.delivery_id, Math.floor(attemptedAt.getTime() / 1000), delivery.payload)),
      body: delivery.payload,
    });
  }
  const { decision, record } = outcomeOfAttempt(ctx, {
    delivery,
    attemptedAt,
    result: {
      ok: result.ok,
      statusCode: result.status ?? null,
      durationMs: result.durationMs,
      error: result.ok ? null : result.message,
      responseExcerpt: result.ok || result.status !== undefined ? result.bodyExcerpt : null,
    },
  });
  ctx.metrics.countDeliveryAttempt(result.ok ? 'delivered' : result.reason, decision.status === 'failed');
  return { delivery, decision, record };
}
