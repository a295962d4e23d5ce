import type { RequestOptions } from '../http.ts';
import type { Operations, RequestBody, ResponseBody } from '../operations.ts';
import type { WithResponse } from '../response.ts';
import { idempotencyKeyFor, type IdempotentRequestOptions } from './idempotency.ts';

export type SessionCreateParams = RequestBody<'createSession'>;
export type Session = ResponseBody<'createSession'>;
export type ExpiredSession = ResponseBody<'expireSession'>;

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

  /**
   * POST /api/v1/sessions/{session_id}/expire: ends an open session now (its link answers 410 and
   * the case completes `abandoned`). Expiring an expired session answers it again; a submitted one
   * is a `ValidationError`.
   */
  expire(sessionId: string, options?: RequestOptions): Promise<WithResponse<ExpiredSession>> {
    return this.#ops.call('expireSession', { path: { session_id: sessionId }, ...(options ? { options } : {}) });
  }
}
