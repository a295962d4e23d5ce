/**
 * When to try a request again: spec §7.3, to the letter.
 *
 * - 429 waits `Retry-After`, else until `X-RateLimit-Reset`, then retries any request (the limit
 *   is checked before the request is processed, so nothing happened). The monthly
 *   `test_usage_cap_exceeded` is not retried: its reset is the next UTC month, and the per-minute
 *   window it would wait for ends in another 429.
 * - A network failure, a timeout, or a 500 (and the 502, 503 and 504 a proxy or a closing server
 *   answers with) is retried only when the request is safe to repeat: a GET, or a POST that carries
 *   an idempotency key, which the retry sends again unchanged.
 * - 400, 401, 402, 403, 404 and 428 (and every other status) are never retried.
 * - Waits between failures grow exponentially from `initialDelayMs`, capped at `maxDelayMs`, with
 *   "equal jitter": half the step fixed, half random, so a fleet of clients spreads out without any
 *   of them retrying at once.
 */

export interface RetrySettings {
  maxRetries: number;
  initialDelayMs: number;
  maxDelayMs: number;
  /** The longest 429 wait the client sits out; a longer one surfaces as `RateLimitError` at once. */
  maxRetryWaitMs: number;
}

export const DEFAULT_RETRY_SETTINGS: RetrySettings = { maxRetries: 2, initialDelayMs: 500, maxDelayMs: 8_000, maxRetryWaitMs: 60_000 };

const RETRIED_SERVER_STATUSES = new Set([500, 502, 503, 504]);

export type AttemptOutcome =
  | { kind: 'network' }
  | { kind: 'response'; status: number; headers: Headers; code: string | null };

export interface RetryContext {
  /** Retries made so far (0 before the first retry). */
  retry: number;
  /** The request may be repeated after a failure whose effect is unknown. */
  idempotent: boolean;
  now: number;
  random: () => number;
  settings: RetrySettings;
}

/** The wait before the next attempt, or null when the outcome is final. */
export function retryDelay(outcome: AttemptOutcome, ctx: RetryContext): number | null {
  if (ctx.retry >= ctx.settings.maxRetries) return null;
  if (outcome.kind === 'network') return ctx.idempotent ? backoffDelay(ctx.retry, ctx.random, ctx.settings) : null;
  if (outcome.status === 429) {
    if (outcome.code === 'test_usage_cap_exceeded') return null;
    const wait = rateLimitWait(outcome.headers, ctx.now) ?? backoffDelay(ctx.retry, ctx.random, ctx.settings);
    return wait <= ctx.settings.maxRetryWaitMs ? wait : null;
  }
  if (RETRIED_SERVER_STATUSES.has(outcome.status)) return ctx.idempotent ? backoffDelay(ctx.retry, ctx.random, ctx.settings) : null;
  return null;
}

export function backoffDelay(retry: number, random: () => number, settings: Pick<RetrySettings, 'initialDelayMs' | 'maxDelayMs'>): number {
  const step = Math.min(settings.maxDelayMs, settings.initialDelayMs * 2 ** retry);
  return Math.round(step / 2 + random() * (step / 2));
}

/** What a 429 asks for: `Retry-After` (seconds or an HTTP date), else the time until `X-RateLimit-Reset`. */
export function rateLimitWait(headers: Headers, now: number): number | null {
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  const reset = headers.get('x-ratelimit-reset')?.trim();
  if (reset && /^\d+$/.test(reset)) return Math.max(0, Number(reset) * 1000 - now);
  return null;
}
