import type { RequestOptions } from '../http.ts';
import type { Operations, RequestBody, ResponseBody } from '../operations.ts';
import type { WithResponse } from '../response.ts';

export type CaseTypeTryParams = RequestBody<'tryCaseTypeDocument'>;
export type CaseTypeTry = ResponseBody<'tryCaseTypeDocument'>;

const withOptions = (options?: RequestOptions) => (options ? { options } : {});

/** `/api/v1/case-types`: trying a case type's fact definitions on a sample document. */
export class CaseTypes {
  readonly #ops: Operations;

  constructor(ops: Operations) {
    this.#ops = ops;
  }

  /**
   * POST /api/v1/case-types/{case_type_id}/try: what extraction reads in a sample (base64 in
   * `document_base64`), and which labels of it would find the facts it misses. Nothing is stored.
   */
  tryDocument(caseTypeId: string, params: CaseTypeTryParams, options?: RequestOptions): Promise<WithResponse<CaseTypeTry>> {
    return this.#ops.call('tryCaseTypeDocument', { path: { case_type_id: caseTypeId }, body: params, ...withOptions(options) });
  }
}
