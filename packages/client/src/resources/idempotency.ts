import type { RequestOptions } from '../http.ts';
import { generateIdempotencyKey } from '../operations.ts';

/** Options of an idempotent create: the key is generated unless you give one. */
export interface IdempotentRequestOptions extends RequestOptions {
  /** Reuse your own key (for instance your record's id) to make the create safe across process restarts too. */
  idempotencyKey?: string;
}

/**
 * The key a create is sent with: the body's `idempotency_key` (which the service prefers), else
 * the one given in options, else a fresh one. Retries send it unchanged.
 */
export function idempotencyKeyFor(body: { idempotency_key?: string }, options: IdempotentRequestOptions | undefined): string {
  return body.idempotency_key ?? options?.idempotencyKey ?? generateIdempotencyKey();
}
