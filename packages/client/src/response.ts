/** The rate-limit headers of spec §8, on every authenticated answer. */
export interface RateLimit {
  /** X-RateLimit-Limit: requests per minute for this key. */
  limit: number;
  /** X-RateLimit-Remaining: requests left in the current window. */
  remaining: number;
  /** X-RateLimit-Reset: epoch seconds when the window resets. */
  reset: number;
}

/** What the HTTP answer said besides its body. */
export interface ResponseInfo {
  status: number;
  /** X-Request-Id. */
  requestId: string | null;
  /** True when the answer replays an earlier request with the same idempotency key (`Idempotent-Replayed: true`). */
  idempotentReplay: boolean;
  /** The idempotency key the client sent (its own or yours), to log beside your record. */
  idempotencyKey: string | null;
  rateLimit: RateLimit | null;
  /** Retries made before this answer (0 when the first attempt succeeded). */
  retries: number;
  headers: Headers;
}

/** A response body with the HTTP details beside it, as `lastResponse` (not enumerable: it stays out of JSON and equality). */
export type WithResponse<T> = T & { readonly lastResponse: ResponseInfo };

export function readRateLimit(headers: Headers): RateLimit | null {
  const limit = Number(headers.get('x-ratelimit-limit') ?? Number.NaN);
  const remaining = Number(headers.get('x-ratelimit-remaining') ?? Number.NaN);
  const reset = Number(headers.get('x-ratelimit-reset') ?? Number.NaN);
  if (!Number.isFinite(limit) || !Number.isFinite(remaining) || !Number.isFinite(reset)) return null;
  return { limit, remaining, reset };
}

export function attachResponse<T>(body: T, info: ResponseInfo): WithResponse<T> {
  const target = (body !== null && typeof body === 'object' ? body : {}) as object;
  Object.defineProperty(target, 'lastResponse', { value: info, enumerable: false, configurable: true });
  return target as WithResponse<T>;
}
