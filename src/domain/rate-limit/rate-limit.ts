import { fail, ok, type Result } from '../errors.ts';
import type { Clock } from '../../ports/clock.ts';
import type { RateLimitStore } from '../../ports/rate-limit-store.ts';

const WINDOW_SECONDS = 60;

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Epoch second at which the current window ends. */
  reset: number;
}

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'x-ratelimit-limit': String(state.limit),
    'x-ratelimit-remaining': String(state.remaining),
    'x-ratelimit-reset': String(state.reset),
  };
}

/** The fixed window (contract §4): aligned to the UTC minute, so every process agrees on it. */
export function currentWindow(now: Date): { start: number; reset: number } {
  const seconds = Math.floor(now.getTime() / 1000);
  const start = seconds - (seconds % WINDOW_SECONDS);
  return { start, reset: start + WINDOW_SECONDS };
}

/** Counts one request for `subject` (a key id, or a prefixed applicant session) and says whether it fits in its per-minute budget. */
export async function consumeRateLimit(
  deps: { rateLimits: RateLimitStore; clock: Clock },
  input: { subject: string; limit: number },
): Promise<Result<RateLimitState>> {
  const { subject, limit } = input;
  const now = deps.clock.now();
  const window = currentWindow(now);
  const count = await deps.rateLimits.hit(`${subject}:${window.start}`, WINDOW_SECONDS);
  const state: RateLimitState = { limit, remaining: Math.max(0, limit - count), reset: window.reset };
  if (count <= limit) return ok(state);
  const retryAfter = Math.max(1, window.reset - Math.floor(now.getTime() / 1000));
  return fail('rate_limit_exceeded', `Rate limit of ${limit} requests per minute exceeded; retry after ${retryAfter} s.`, {
    ...rateLimitHeaders(state),
    'retry-after': String(retryAfter),
  });
}
