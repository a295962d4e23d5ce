import type { AppContext } from '../../domain/deps.ts';
import type { AttemptDecision } from '../../domain/webhooks/attempt-outcome.ts';
import { decideAfterAttempt } from '../../domain/retry-schedule.ts';
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

/**
 * Sends one leased delivery, signed afresh, and decides what follows. A disabled endpoint is not
 * sent to: the attempt counts as a connection failure, so its deliveries still end.
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
  } else {
    const keys = tools.secrets.get(ctx, delivery, attemptedAt);
    result = await tools.http.fetch({
      url: delivery.url,
      method: 'POST',
      headers: deliveryHeaders(signAttemptWithKeys(keys, delivery.delivery_id, Math.floor(attemptedAt.getTime() / 1000), delivery.payload)),
      body: delivery.payload,
    });
  }
  const decision = decideAfterAttempt({
    attemptCountBefore: delivery.attempt_count,
    succeeded: result.ok,
    succeededAs: 'delivered',
    now: ctx.clock.now(),
    retryDelaysSeconds: ctx.config.webhookRetryDelaysSeconds,
  });
  ctx.metrics.countDeliveryAttempt(result.ok ? 'delivered' : result.reason, decision.status === 'failed');
  const record: RecordedAttempt = {
    delivery_id: delivery.delivery_id,
    attempt_number: delivery.total_attempts + 1,
    attempted_at: attemptedAt,
    status_code: result.status ?? null,
    duration_ms: result.durationMs,
    error: result.ok ? null : result.message,
    response_excerpt: result.ok || result.status !== undefined ? result.bodyExcerpt : null,
    status: decision.status,
    attempt_count: decision.attemptCount,
    next_attempt_at: decision.nextAttemptAt,
  };
  return { delivery, decision, record };
}
