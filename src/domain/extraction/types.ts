import type { EvidenceSource, PageOrigin } from '../documents/origin.ts';
import type { PageTextMethod } from '../documents/types.ts';

export type { EvidenceSource };

export { FACT_TYPES, type FactDefinition, type FactType } from '../case-types/definition.ts';

/** What fact extraction needs of a page: its canonical text and how it was obtained. */
export interface ExtractionPage {
  readonly page_index: number;
  readonly text: string;
  readonly method: PageTextMethod;
  /** Where each character came from; without it the page text is its own original (text sources). */
  readonly origin?: PageOrigin;
}

import type { FactStatus } from '../../storage/tables/cases.ts';
export type { FactStatus };

/** api-spec §2.4 `evidence[]`. The quote is always `pages[page_index].text.slice(char_start, char_end)`. */
export interface Evidence {
  readonly evidence_id: string;
  readonly quote: string;
  readonly location: { readonly char_start: number; readonly char_end: number };
  readonly doc_id: string;
  readonly page_index: number;
  /** The same span in the document as uploaded: an original text range, or a box on the page. */
  readonly source: EvidenceSource;
}

/** api-spec §2.4 `provenance[]`: the same spans as `evidence`, in the provenance shape. */
export interface Provenance {
  readonly kind: 'document_text';
  readonly document_id: string;
  readonly page_index: number;
  readonly quote: string;
  readonly char_start: number;
  readonly char_end: number;
}

/** Where the value sat relative to its anchor; it feeds the score and explains the choice. */
export type ValuePlacement =
  /** "Pay date: 03/14/2026" — after the anchor in the same cell. */
  | 'same_line'
  /** "Pay date ⇥ 03/14/2026" — the next column of the same line. */
  | 'next_column'
  /** Anchor alone at the end of its line; value on the next non-empty line. */
  | 'next_line'
  /** Header row of a table; value in the same column of the next row. */
  | 'table_column';

export interface CandidateAnchor {
  /** The configured anchor phrase that matched (one of the fact's `anchors`). */
  readonly phrase: string;
  /** The text on the page that matched it, and where (an exact slice of the page text). */
  readonly quote: string;
  readonly char_start: number;
  readonly char_end: number;
  /** Weighted edit distance of the match: 0 exact; 1 per typo (0.5 for a space or an OCR look-alike). */
  readonly edit_distance: number;
}

/** One place on the page where the fact's value may be. `candidates[]` of an extracted fact. */
export interface FactCandidate {
  readonly candidate_id: string;
  /** Normalised value; null when the text after the anchor could not be parsed as the fact type. */
  readonly value: string | null;
  /** 0..1; see scoring in extract-facts.ts. */
  readonly anchor_match_quality: number;
  readonly page_index: number;
  readonly placement: ValuePlacement;
  readonly anchor: CandidateAnchor;
  /** The value's text (one span per line for multi-line addresses); quotes never include the anchor. */
  readonly evidence: readonly Evidence[];
  readonly reason_codes: readonly string[];
}

/** api-spec §2.4 fact, plus `candidates` (additive: clients ignore unknown fields). */
export interface ExtractedFact {
  readonly fact_id: string;
  readonly fact_label: string;
  readonly status: FactStatus;
  readonly value: string | null;
  readonly candidate_id: string | null;
  readonly anchor_match_quality: number;
  readonly source: 'document_extraction';
  readonly reason_codes: readonly string[];
  readonly provenance: readonly Provenance[];
  readonly verification_metadata: readonly never[];
  readonly evidence: readonly Evidence[];
  /** Every parsed or unparseable candidate, best first (at most {@link MAX_CANDIDATES}). */
  readonly candidates: readonly FactCandidate[];
}

export const MAX_CANDIDATES = 5;

/**
 * Fact-level reason codes. The first four decide the status; the rest explain a resolved value.
 * Stable snake_case: stored and shown to operators, never renamed.
 */
export const FACT_REASON_CODES = [
  'not_found',
  'unparseable_value',
  'conflicting_candidates',
  'low_confidence',
  'fuzzy_anchor',
  'anchor_not_at_label_start',
  'value_on_next_line',
  'ocr_text',
  'ocr_corrected_characters',
  'ambiguous_date_order',
  'date_order_from_document',
  'two_digit_year',
  'single_word_name',
  'address_without_postal_code',
] as const;
export type FactReasonCode = (typeof FACT_REASON_CODES)[number];
