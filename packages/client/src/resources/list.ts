import type { RequestOptions } from '../http.ts';
import type { CallInput, OperationId, Operations, QueryParams, ResponseBody } from '../operations.ts';
import { PageList } from '../pagination.ts';

interface StartingAfterPage {
  has_more: boolean;
  next_cursor: string | null;
}

/** The list operations paged with `starting_after` = the previous page's `next_cursor`. */
export type StartingAfterOperation = {
  [Id in OperationId]: QueryParams<Id> extends { starting_after?: string } ? (ResponseBody<Id> extends StartingAfterPage ? Id : never) : never;
}[OperationId];

/** A list operation as an async iterable over its pages; `items` picks a page's rows. */
export function listPages<Id extends StartingAfterOperation, Item>(
  ops: Operations,
  operationId: Id,
  params: QueryParams<Id>,
  options: RequestOptions | undefined,
  items: (page: ResponseBody<Id>) => readonly Item[],
): PageList<ResponseBody<Id>, string, Item> {
  const { starting_after: start, ...query } = params as { starting_after?: string };
  return new PageList(
    {
      fetch: (cursor) =>
        ops.call(operationId, {
          query: { ...query, ...(cursor !== undefined ? { starting_after: cursor } : {}) },
          ...(options ? { options } : {}),
        } as CallInput<Id>),
      next: (page) => ((page as StartingAfterPage).has_more ? (page as StartingAfterPage).next_cursor : null),
      items,
    },
    start,
  );
}
