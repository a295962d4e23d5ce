import type { Operations, RequestBody, ResponseBody } from '../operations.ts';
import type { WithResponse } from '../response.ts';
import { idempotencyKeyFor, type IdempotentRequestOptions } from './idempotency.ts';

export type ProcessCreateParams = RequestBody<'processDocument'>;
export type ProcessAccepted = ResponseBody<'processDocument'>;

/** `/api/v1/process`: process a document from a URL. */
export class Process {
  readonly #ops: Operations;

  constructor(ops: Operations) {
    this.#ops = ops;
  }

  /** POST /api/v1/process. Idempotent like sessions; answers 202 with the case and document ids. */
  create(body: ProcessCreateParams, options?: IdempotentRequestOptions): Promise<WithResponse<ProcessAccepted>> {
    return this.#ops.call('processDocument', { body, idempotencyKey: idempotencyKeyFor(body, options), ...(options ? { options } : {}) });
  }
}
