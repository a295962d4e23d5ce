import type { WithResponse } from './response.ts';

interface Paging<Page, Cursor, Item> {
  fetch(cursor: Cursor | undefined): Promise<WithResponse<Page>>;
  /** The cursor of the next page, or null when this page was the last. */
  next(page: Page): Cursor | null;
  items(page: Page): readonly Item[];
}

async function* walkPages<Page, Cursor, Item>(paging: Paging<Page, Cursor, Item>, start: Cursor | undefined): AsyncGenerator<WithResponse<Page>> {
  let cursor = start;
  for (;;) {
    const page = await paging.fetch(cursor);
    yield page;
    const next = paging.next(page);
    if (next === null) return;
    // A server that answers has_more without moving the cursor would loop forever.
    if (next === cursor) throw new Error(`paging stopped: the next cursor ${String(next)} is the one just read`);
    cursor = next;
  }
}

/** An async iterable over pages (`for await (const page of dossier.cases.list())`), each with `lastResponse`. */
export class PageList<Page, Cursor, Item> implements AsyncIterable<WithResponse<Page>> {
  readonly #paging: Paging<Page, Cursor, Item>;
  readonly #start: Cursor | undefined;

  constructor(paging: Paging<Page, Cursor, Item>, start?: Cursor) {
    this.#paging = paging;
    this.#start = start;
  }

  [Symbol.asyncIterator](): AsyncIterator<WithResponse<Page>> {
    return walkPages(this.#paging, this.#start);
  }

  /** The first page only. */
  first(): Promise<WithResponse<Page>> {
    return this.#paging.fetch(this.#start);
  }

  /** Every item of every page, in order. */
  async *items(): AsyncGenerator<Item> {
    for await (const page of this) yield* this.#paging.items(page);
  }
}

/**
 * An async iterable over the events of a case, following `next_cursor` while `has_more` (spec
 * §4.2). `cursor` is the `after_cursor` to resume from: the cursor of the last event handed out.
 */
export class EventStream<Page, Item extends { cursor: number }> implements AsyncIterable<Item> {
  readonly #paging: Paging<Page, number, Item>;
  #cursor: number;

  constructor(paging: Paging<Page, number, Item>, afterCursor: number) {
    this.#paging = paging;
    this.#cursor = afterCursor;
  }

  get cursor(): number {
    return this.#cursor;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    for await (const page of this.pages()) {
      for (const item of this.#paging.items(page)) {
        this.#cursor = item.cursor;
        yield item;
      }
    }
  }

  /** Page by page, from the current cursor. */
  pages(): AsyncIterable<WithResponse<Page>> {
    return { [Symbol.asyncIterator]: () => walkPages(this.#paging, this.#cursor) };
  }
}
