import type { RequestOptions } from '../http.ts';
import type { Operations, QueryParams, RequestBody, ResponseBody } from '../operations.ts';
import { EventStream, type PageList } from '../pagination.ts';
import { listPages } from './list.ts';
import type { WithResponse } from '../response.ts';

export type CaseRecord = ResponseBody<'getCase'>;
export type CaseListParams = QueryParams<'listCases'>;
export type QueuePage = ResponseBody<'listCases'>;
export type QueueRow = QueuePage['data'][number];
export type CaseEventPage = ResponseBody<'listCaseEvents'>;
export type CaseEvent = CaseEventPage['events'][number];
export type CasePackage = ResponseBody<'getCasePackage'>;
export type CaseDecisionParams = RequestBody<'decideCase'>;
export type FactCorrectionParams = RequestBody<'correctFact'>;
export type FactCorrection = ResponseBody<'correctFact'>;
export type CaseErasure = ResponseBody<'eraseCase'>;
export type DocumentErasure = ResponseBody<'eraseDocument'>;
export type DocumentDetail = ResponseBody<'getDocument'>;
export type DocumentPage = DocumentDetail['pages'][number];

export interface CaseEventsParams {
  /** Events after this cursor (default 0: from the start). Pass the cursor you stored. */
  afterCursor?: number;
  /** Page size, 1 to 500 (default 100). */
  limit?: number;
}

/** `/api/v1/cases/{case_id}/facts/{fact_id}`: operator corrections. */
export class CaseFacts {
  readonly #ops: Operations;

  constructor(ops: Operations) {
    this.#ops = ops;
  }

  /** PATCH /api/v1/cases/{case_id}/facts/{fact_id}. */
  update(caseId: string, factId: string, body: FactCorrectionParams, options?: RequestOptions): Promise<WithResponse<FactCorrection>> {
    return this.#ops.call('correctFact', { path: { case_id: caseId, fact_id: factId }, body, ...(options ? { options } : {}) });
  }
}

/** `/api/v1/cases/{case_id}/documents/{doc_id}`. */
export class CaseDocuments {
  readonly #ops: Operations;

  constructor(ops: Operations) {
    this.#ops = ops;
  }

  /**
   * GET /api/v1/cases/{case_id}/documents/{doc_id}: the document and its pages, whose `text` is
   * what evidence `location` offsets index. An erased document has status `erased` and no pages.
   */
  retrieve(caseId: string, docId: string, options?: RequestOptions): Promise<WithResponse<DocumentDetail>> {
    return this.#ops.call('getDocument', { path: { case_id: caseId, doc_id: docId }, ...(options ? { options } : {}) });
  }

  /** DELETE /api/v1/cases/{case_id}/documents/{doc_id}: erases one document. Repeatable. */
  erase(caseId: string, docId: string, options?: RequestOptions): Promise<WithResponse<DocumentErasure>> {
    return this.#ops.call('eraseDocument', { path: { case_id: caseId, doc_id: docId }, ...(options ? { options } : {}) });
  }
}

/** `/api/v1/cases`: the queue, case state, the event log and the review-ready package. */
export type CaseActionState = ResponseBody<'retryCaseAction'>;

/** `/api/v1/cases/{case_id}/actions`: workflow action nodes that call your system through a connector. */
export class CaseActions {
  readonly #ops: Operations;

  constructor(ops: Operations) {
    this.#ops = ops;
  }

  /** POST /api/v1/cases/{case_id}/actions/{node_id}/retry: sends a failed action again (same Idempotency-Key). */
  retry(caseId: string, nodeId: string, options?: RequestOptions): Promise<WithResponse<CaseActionState>> {
    return this.#ops.call('retryCaseAction', { path: { case_id: caseId, node_id: nodeId }, ...(options ? { options } : {}) });
  }
}

export class Cases {
  readonly #ops: Operations;
  readonly facts: CaseFacts;
  readonly documents: CaseDocuments;
  readonly actions: CaseActions;

  constructor(ops: Operations) {
    this.#ops = ops;
    this.facts = new CaseFacts(ops);
    this.documents = new CaseDocuments(ops);
    this.actions = new CaseActions(ops);
  }

  /** GET /api/v1/cases/{case_id}: the current, canonical case record. */
  retrieve(caseId: string, options?: RequestOptions): Promise<WithResponse<CaseRecord>> {
    return this.#ops.call('getCase', { path: { case_id: caseId }, ...(options ? { options } : {}) });
  }

  /** GET /api/v1/cases: the queue, as an async iterable over pages (`.items()` for rows). */
  list(params: CaseListParams = {}, options?: RequestOptions): PageList<QueuePage, string, QueueRow> {
    return listPages(this.#ops, 'listCases', params, options, (page) => page.data);
  }

  /**
   * GET /api/v1/cases/{case_id}/events, followed page after page while `has_more`: an async
   * iterable over the events. Its `cursor` is the `after_cursor` to resume from next time.
   */
  events(caseId: string, params: CaseEventsParams = {}, options?: RequestOptions): EventStream<CaseEventPage, CaseEvent> {
    const { afterCursor = 0, limit } = params;
    return new EventStream(
      {
        fetch: (cursor) =>
          this.#ops.call('listCaseEvents', {
            path: { case_id: caseId },
            query: { after_cursor: cursor ?? afterCursor, ...(limit !== undefined ? { limit } : {}) },
            ...(options ? { options } : {}),
          }),
        next: (page) => (page.has_more ? page.next_cursor : null),
        items: (page) => page.events,
      },
      afterCursor,
    );
  }

  /** GET /api/v1/cases/{case_id}/package: the review-ready package. */
  package(caseId: string, options?: RequestOptions): Promise<WithResponse<CasePackage>> {
    return this.#ops.call('getCasePackage', { path: { case_id: caseId }, ...(options ? { options } : {}) });
  }

  /** POST /api/v1/cases/{case_id}/decision: approve or reject a case in review. Not retried after an unknown outcome. */
  decide(caseId: string, body: CaseDecisionParams, options?: RequestOptions): Promise<WithResponse<CaseRecord>> {
    return this.#ops.call('decideCase', { path: { case_id: caseId }, body, ...(options ? { options } : {}) });
  }

  /** POST /api/v1/cases/{case_id}/erasure: erases the case's document-derived data. Repeatable. */
  erase(caseId: string, options?: RequestOptions): Promise<WithResponse<CaseErasure>> {
    return this.#ops.call('eraseCase', { path: { case_id: caseId }, ...(options ? { options } : {}) });
  }
}
