import type { Operations, RequestBody, ResponseBody } from '../operations.ts';
import type { WithResponse } from '../response.ts';
import { idempotencyKeyFor, type IdempotentRequestOptions } from './idempotency.ts';

export type SessionCreateParams = RequestBody<'createSession'>;
export type Session = ResponseBody<'createSession'>;

/** `/api/v1/sessions`: hosted intake sessions. */
export class Sessions {
  readonly #ops: Operations;

  constructor(ops: Operations) {
    this.#ops = ops;
  }

  /** POST /api/v1/sessions. Idempotent: a replay answers the original session with `idempotent_replay: true`. */
  create(body: SessionCreateParams, options?: IdempotentRequestOptions): Promise<WithResponse<Session>> {
    return this.#ops.call('createSession', { body, idempotencyKey: idempotencyKeyFor(body, options), ...(options ? { options } : {}) });
  }
}
