import { fail, type Failure } from '../errors.ts';
import { currentWindow } from '../rate-limit/rate-limit.ts';

/** Distinct client addresses tracked at once; beyond it the table starts over (a flood of addresses gets no memory). */
const MAX_TRACKED_ADDRESSES = 50_000;

/**
 * Failed authentications per client address and minute (issue 9 §5). Checked before a key is
 * looked up, so an address that keeps guessing costs no database query once over the limit.
 * Kept in process memory: with several processes each counts its own, which bounds the database
 * work per process, the cost the limit exists to cap.
 */
export class FailedAuthLimiter {
  readonly #limit: number;
  readonly #counts = new Map<string, { window: number; failures: number }>();

  constructor(limitPerMinute: number) {
    this.#limit = limitPerMinute;
  }

  /** A 429 failure when `address` is over its budget for this minute, else undefined. */
  refusal(address: string, now: Date): Failure | undefined {
    const window = currentWindow(now);
    const entry = this.#counts.get(address);
    if (!entry || entry.window !== window.start || entry.failures < this.#limit) return undefined;
    const retryAfter = Math.max(1, window.reset - Math.floor(now.getTime() / 1000));
    return fail('rate_limit_exceeded', `Too many failed authentications from this address; retry after ${retryAfter} s.`, { 'retry-after': String(retryAfter) });
  }

  record(address: string, now: Date): void {
    const window = currentWindow(now).start;
    const entry = this.#counts.get(address);
    if (entry && entry.window === window) {
      entry.failures++;
      return;
    }
    if (this.#counts.size >= MAX_TRACKED_ADDRESSES) this.#counts.clear();
    this.#counts.set(address, { window, failures: 1 });
  }
}
