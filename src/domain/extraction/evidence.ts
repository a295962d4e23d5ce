import { sourceOf } from '../documents/origin.ts';
import { deterministicId } from './ids.ts';
import type { Evidence, ExtractedFact, ExtractionPage, Provenance } from './types.ts';

/**
 * The evidence invariant, enforced where evidence is made rather than only tested: every quote is
 * exactly `pages[page_index].text.slice(char_start, char_end)`. A violation is a bug in extraction
 * (or text stored differently from what was extracted), never an expected outcome, so it throws.
 */
export class EvidenceInvariantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EvidenceInvariantError';
  }
}

/** Pages indexed by `page_index` (which need not equal the array position). */
export type PageIndex = ReadonlyMap<number, ExtractionPage>;

export function indexPages(pages: readonly ExtractionPage[]): PageIndex {
  const byIndex = new Map<number, ExtractionPage>();
  for (const page of pages) {
    if (!Number.isInteger(page.page_index) || page.page_index < 0) throw new EvidenceInvariantError(`page_index ${page.page_index} is not a non-negative integer`);
    if (byIndex.has(page.page_index)) throw new EvidenceInvariantError(`page_index ${page.page_index} appears twice`);
    byIndex.set(page.page_index, page);
  }
  return byIndex;
}

/**
 * The only way extraction makes evidence: the quote is cut from the page, never passed in, and the
 * span must be a non-empty range inside the page.
 */
export function createEvidence(
  pages: PageIndex,
  span: { documentId: string; factId: string; pageIndex: number; charStart: number; charEnd: number },
): Evidence {
  const page = pages.get(span.pageIndex);
  if (!page) throw new EvidenceInvariantError(`no page ${span.pageIndex}`);
  const { charStart, charEnd } = span;
  if (!Number.isInteger(charStart) || !Number.isInteger(charEnd) || charStart < 0 || charEnd <= charStart || charEnd > page.text.length) {
    throw new EvidenceInvariantError(`span ${charStart}..${charEnd} is not inside page ${span.pageIndex} (length ${page.text.length})`);
  }
  return {
    evidence_id: deterministicId('ev', span.documentId, span.factId, span.pageIndex, charStart, charEnd),
    quote: page.text.slice(charStart, charEnd),
    location: { char_start: charStart, char_end: charEnd },
    doc_id: span.documentId,
    page_index: span.pageIndex,
    source: sourceOf(page.origin, span.pageIndex, charStart, charEnd),
  };
}

export function provenanceOf(evidence: Evidence): Provenance {
  return {
    kind: 'document_text',
    document_id: evidence.doc_id,
    page_index: evidence.page_index,
    quote: evidence.quote,
    char_start: evidence.location.char_start,
    char_end: evidence.location.char_end,
  };
}

/**
 * Re-checks a finished fact (its evidence, provenance, candidates and anchors) against the pages.
 * extractFacts runs it on every fact it returns; the API may run it on facts read back from
 * storage against the stored page text. Throws EvidenceInvariantError on the first mismatch.
 */
export function assertFactEvidence(fact: ExtractedFact, pages: readonly ExtractionPage[] | PageIndex): void {
  const index = pages instanceof Map ? pages : indexPages(pages as readonly ExtractionPage[]);
  const check = (where: string, pageIndex: number, quote: string, start: number, end: number) => {
    const page = index.get(pageIndex);
    if (!page) throw new EvidenceInvariantError(`${fact.fact_id} ${where}: no page ${pageIndex}`);
    if (!(start >= 0 && end > start && end <= page.text.length) || page.text.slice(start, end) !== quote) {
      throw new EvidenceInvariantError(`${fact.fact_id} ${where}: quote does not equal page ${pageIndex} text ${start}..${end}`);
    }
  };
  for (const e of fact.evidence) check('evidence', e.page_index, e.quote, e.location.char_start, e.location.char_end);
  for (const p of fact.provenance) check('provenance', p.page_index, p.quote, p.char_start, p.char_end);
  for (const c of fact.candidates) {
    for (const e of c.evidence) check(`candidate ${c.candidate_id}`, e.page_index, e.quote, e.location.char_start, e.location.char_end);
    check(`candidate ${c.candidate_id} anchor`, c.page_index, c.anchor.quote, c.anchor.char_start, c.anchor.char_end);
  }
}
