import { findAnchorsInLine, prepareAnchors, resolveAnchorMatches, type AnchorMatch, type AnchorSpec } from './anchors.ts';
import { assertFactEvidence, createEvidence, indexPages, provenanceOf, type PageIndex } from './evidence.ts';
import { deterministicId } from './ids.ts';
import { isBlank, splitPageLines, type PageLine, type Segment } from './lines.ts';
import { parseAddress, type AddressPiece } from '../parsers/address.ts';
import type { DateOrder, ParseContext, ParsedValue } from '../parsers/common.ts';
import { dateOrderHint, inferDateOrder, parseDate } from '../parsers/date.ts';
import { isCurrencyMarker, parseMoney, startsWithAmount } from '../parsers/money.ts';
import { parseNumber } from '../parsers/number.ts';
import { parseIdNumber, parseName, parseString, repairLeadingLetters } from '../parsers/text.ts';
import {
  MAX_CANDIDATES,
  type Evidence,
  type ExtractedFact,
  type ExtractionPage,
  type FactCandidate,
  type FactDefinition,
  type FactType,
  type ValuePlacement,
} from './types.ts';

/**
 * Deterministic, explainable fact extraction: find each fact's anchors (its label phrases) in the
 * canonical page text, read a typed value next to each, score every reading, pick one.
 *
 * Where the value is looked for, per anchor occurrence:
 *   1. after the anchor in the same cell (skipping ":", "#", "-", dot leaders and a "(USD)" style
 *      hint), up to the end of the cell or the next label on the line — `same_line`;
 *   2. else the next cell of the same line, unless that cell is itself a label — `next_column`;
 *   3. else the next non-empty line (at most two blank lines down), taking the cell in the same
 *      column when the two lines have the same number of cells — `table_column` — or the nearest
 *      column otherwise — `next_line`.
 * An anchor followed by more words and a colon ("Employee ID:", "Company code:") is a different
 * label that merely starts with the anchor, and is skipped.
 *
 * Scoring (`anchor_match_quality`, 0..1) is a product of independent factors, each 1 when clean:
 *   anchor      1 − 0.1 × edit distance (a one-letter OCR typo → 0.9)
 *   position    1 at the start of a cell; 0.95 for a second "label: value" inside a cell;
 *               0.55 behind a qualifier ("Previous statement date:", "YTD gross pay:"), which
 *               can never resolve alone; an anchor mid-cell without a colon is prose and skipped
 *   placement   same_line 1 · next_column 0.97 · next_line / table_column 0.93
 *   parse       from the type's parser (ambiguous day/month 0.9, two-digit year 0.95, OCR digit
 *               repair 0.9, single-word name 0.75, amount without currency or cents 0.85 …)
 *   source      0.92 for OCR pages
 * The best-scoring value wins when it scores ≥ {@link MIN_RESOLVED_SCORE} and no candidate with a
 * different value is within {@link CONFLICT_MARGIN} of it. Candidates with the same value (the
 * name in the header and in the "Employee name:" field) never conflict.
 *
 * Statuses:
 *   resolved      a value was chosen; `reason_codes` explain any compromise in it.
 *   needs_input   `not_found` (no usable anchor, or nothing after it), `conflicting_candidates`,
 *                 or `low_confidence`: a person has to supply or confirm the value.
 *   failed        `unparseable_value`: an exact anchor at the start of a label had text after it
 *                 that is not a value of the fact's type ("Pay date: TBD"). The document itself
 *                 says something unexpected, so an operator should look rather than the applicant
 *                 being asked to retype it. The raw text is the evidence.
 *   (pending is the API's status for facts whose documents are still being processed; never here.)
 *
 * The output is a pure function of the input: same pages and facts → same facts, ids included.
 */

/** Below this, a reading is shown as a candidate but the fact still needs a person. */
export const MIN_RESOLVED_SCORE = 0.6;
/**
 * Position factor of an anchor behind other words in its cell ("Previous statement date:",
 * "YTD gross pay:"). Such a label is usually a different field that contains the anchor, so on its
 * own it must not resolve a fact: 0.55 keeps every such reading below MIN_RESOLVED_SCORE.
 */
const QUALIFIED_LABEL = 0.55;
/** Two different values this close in score are a conflict, not a choice (absolute score units). */
export const CONFLICT_MARGIN = 0.1;

export interface ExtractFactsInput {
  readonly documentId: string;
  readonly pages: readonly ExtractionPage[];
  /** The case type's facts meant for this document (see factsForDocumentKind). */
  readonly facts: readonly FactDefinition[];
  /** Order for ambiguous all-numeric dates when the document itself does not settle it. Default `mdy`. */
  readonly dateOrder?: DateOrder;
}

/** The case type's facts that come from a given document kind (all facts without `document_kinds`). */
export function factsForDocumentKind(facts: readonly FactDefinition[], documentKind: string): FactDefinition[] {
  return facts.filter((f) => !f.document_kinds || f.document_kinds.length === 0 || f.document_kinds.includes(documentKind));
}

interface PreparedPage {
  readonly page: ExtractionPage;
  readonly lines: readonly PageLine[];
  /** Resolved anchor matches (all facts) per line index. */
  readonly matches: ReadonlyMap<number, readonly AnchorMatch[]>;
}

interface WorkingCandidate {
  readonly value: string | null;
  readonly score: number;
  /** Score without the parse factor: how trustworthy the label itself was. */
  readonly labelScore: number;
  readonly page: ExtractionPage;
  readonly placement: ValuePlacement;
  readonly match: AnchorMatch;
  readonly spans: ReadonlyArray<{ start: number; end: number }>;
  readonly reasons: readonly string[];
  readonly cleanLabel: boolean;
}

export function extractFacts(input: ExtractFactsInput): ExtractedFact[] {
  const pageIndex = indexPages(input.pages);
  const specs: AnchorSpec[] = input.facts.flatMap((f) => f.anchors.map((phrase) => ({ factId: f.fact_id, phrase })));
  const anchors = prepareAnchors(specs);
  const inferred = inferDateOrder(input.pages.map((p) => p.text));
  const prepared: PreparedPage[] = [...input.pages]
    .sort((a, b) => a.page_index - b.page_index)
    .map((page) => {
      const lines = splitPageLines(page.text);
      const matches = new Map<number, AnchorMatch[]>();
      for (const line of lines) {
        if (isBlank(line)) continue;
        const found = resolveAnchorMatches(findAnchorsInLine(line, anchors));
        if (found.length > 0) matches.set(line.index, found);
      }
      return { page, lines, matches };
    });

  const readings = input.facts.map((fact) => {
    const working: WorkingCandidate[] = [];
    for (const page of prepared) {
      for (const lineMatches of page.matches.values()) {
        for (const match of lineMatches) {
          if (match.factId !== fact.fact_id) continue;
          const candidate = readCandidate(fact, page, match, { defaultOrder: input.dateOrder ?? 'mdy', inferred });
          if (candidate) working.push(candidate);
        }
      }
    }
    return working;
  });
  const identifiers = readings.flatMap((working, i) => (input.facts[i]!.type === 'id_number' ? working : []));
  return input.facts.map((fact, i) => {
    const working = fact.type === 'id_number' ? readings[i]!.map((c) => withIdentifierShape(c, identifiers)) : readings[i]!;
    const extracted = decide(fact, working, input.documentId, pageIndex);
    assertFactEvidence(extracted, pageIndex);
    return extracted;
  });
}

/**
 * OCR reads a capital at the start of an identifier as the digit it resembles ("1E/4410/B" for
 * "IE/4410/B"). A leading digit is given back its letter only when another identifier on the same
 * document shows the shape — letters where this one has look-alike digits, and the rest the same
 * — and this reading's own shape is shared by none of them.
 */
function withIdentifierShape(candidate: WorkingCandidate, identifiers: readonly WorkingCandidate[]): WorkingCandidate {
  if (candidate.value === null || candidate.page.method !== 'ocr') return candidate;
  const others = identifiers.filter((c) => c !== candidate && c.value !== null && c.value !== candidate.value).map((c) => c.value!);
  const repaired = repairLeadingLetters(candidate.value, others);
  if (repaired === candidate.value) return candidate;
  return { ...candidate, value: repaired, score: round(candidate.score * 0.9), reasons: [...candidate.reasons, 'ocr_corrected_characters'] };
}

const SEPARATORS = /^(?:[\s:;#=|>*_.…]|[-–—](?=\s))*/;
const HINT = /^\s*[([]([^)\]]{1,24})[)\]]/;
const LABEL_CONTINUES = /^[\p{L}][\p{L}'’.\-]*(?:\s+[\p{L}][\p{L}'’.\-]*){0,3}\s*(?:[([][^)\]]{1,24}[)\]]\s*)?:/u;
/**
 * OCR reads specks and smudges as stray punctuation between a label and its value ("Employee -.
 * OMAR", "Account holder: ⇥ . THOMAS", "Registration no: ‘HRB 134752"), and a label's colon as
 * "?" or "!" ("GROSS EARNINGS? Rs. 7,297.03"): on OCR pages whole tokens of such marks, and quote
 * marks stuck to the front of the value, are skipped. A minus touching a
 * digit is never a whole token, so "-12.50" stays.
 */
const OCR_SPECKS = /^(?:[.,;:?!'‘’`"“”|_~•·*^\-–—]+(?:\s+|$))*(?:['‘’`"“”]+(?=[\p{L}\p{N}\p{Sc}]))?/u;
const LABEL_LIKE_CELL = /^[\p{L}][\p{L}\d .'’#/()&-]{0,40}:(\s|$)|^[^:]{1,40}:$/u;

function readCandidate(
  fact: FactDefinition,
  page: PreparedPage,
  match: AnchorMatch,
  dates: { defaultOrder: DateOrder; inferred: DateOrder | undefined },
): WorkingCandidate | null {
  const text = page.page.text;
  const line = page.lines[match.line]!;
  const segment = segmentAt(line, match.end - 1);
  if (!segment) return null;

  // What follows the anchor in its cell: an optional "(MM/DD/YYYY)" hint, separators, the value.
  let cursor = match.end;
  let hint: string | undefined;
  const hintMatch = text.slice(cursor, segment.end).match(HINT);
  if (hintMatch) {
    hint = hintMatch[1];
    cursor += hintMatch[0].length;
  }
  const separators = text.slice(cursor, segment.end).match(SEPARATORS)![0];
  const labelClosed = /[:=]/.test(separators);
  cursor += separators.length;
  const ocr = page.page.method === 'ocr';
  if (ocr) cursor += text.slice(cursor, segment.end).match(OCR_SPECKS)![0].length;
  const rest = text.slice(cursor, segment.end);
  // "Employee ID: …" is another label.
  if (!labelClosed && LABEL_CONTINUES.test(rest)) return null;

  const reasons: string[] = [];
  const labelStart = Math.max(segment.start, Math.min(match.start, segment.end));
  const prefix = text.slice(segment.start, labelStart);
  let position = 1;
  if (/[\p{L}\p{N}]/u.test(prefix)) {
    // Mid-cell without a colon is prose ("contact your employer for …"), not a label.
    if (!labelClosed) return null;
    if (prefix.includes(':')) position = 0.95; // a second "label: value" in one cell
    else {
      position = QUALIFIED_LABEL;
      reasons.push('anchor_not_at_label_start');
    }
  }
  const anchorScore = Math.max(0, 1 - 0.1 * match.distance);
  if (match.distance > 0) reasons.push('fuzzy_anchor');
  const source = ocr ? 0.92 : 1;
  if (ocr) reasons.push('ocr_text');

  // 1. Same cell, cut before the next label on the line.
  const lineMatches = page.matches.get(line.index) ?? [];
  let regionEnd = segment.end;
  for (const other of lineMatches) {
    const labelOfAnother = other.distance === 0 && other.factId !== fact.fact_id;
    if (other.start >= cursor && other.start < regionEnd && (labelOfAnother || closesWithColon(text, other.end, segment.end))) {
      regionEnd = other.start;
    }
  }
  let placement: ValuePlacement = 'same_line';
  let region: { start: number; end: number; line: PageLine; segment: Segment } | undefined;
  // On OCR pages a lone character left at the end of the label's cell, before a next cell, is a
  // speck read as a letter ("EMPLOYEE H ⇥ ROBERT PRICE"): the value is the next cell.
  // A lone symbol there ("EMPLOYEE ©", "Tenant ®") is a speck wherever the value is: no value of
  // any type is one mark that is neither a letter, a digit nor a currency.
  const leftover = text.slice(cursor, regionEnd);
  const speckBeforeGap =
    ocr && regionEnd === segment.end && (/^\s*[^\s\p{L}\p{N}\p{Sc}]\s*$/u.test(leftover) || (/^\s*[^\s\d\p{Sc}]\s*$/u.test(leftover) && line.segments[segment.column + 1] !== undefined));
  if (leftover.trim() !== '' && !speckBeforeGap) {
    region = { start: cursor, end: regionEnd, line, segment };
  } else {
    // 2. The next cell of the same line; on OCR pages a cell of nothing but specks between the
    // label and its value ("Employee name: ⇥ ' ⇥ David Williams") is passed over.
    let next = line.segments[segment.column + 1];
    if (ocr && next && isSpeckCell(next) && line.segments[next.column + 1]) next = line.segments[next.column + 1];
    if (next && !isLabelCell(next, lineMatches, text)) {
      placement = 'next_column';
      region = { start: next.start, end: next.end, line, segment: next };
    } else {
      // 3. The next non-empty line, same column when the layout is a table.
      const below = nextNonBlankLine(page.lines, line.index, 2);
      if (below) {
        const cell = alignedSegment(line, segment, below);
        if (cell && !isLabelCell(cell, page.matches.get(below.index) ?? [], text)) {
          placement = line.segments.length > 1 && below.segments.length === line.segments.length ? 'table_column' : 'next_line';
          region = { start: cell.start, end: cell.end, line: below, segment: cell };
        }
      }
    }
  }
  if (!region) return null;
  if (ocr && placement !== 'same_line') {
    const specks = text.slice(region.start, region.end).match(OCR_SPECKS)![0].length;
    // A cell of nothing but marks stays as it is: it is what the evidence of a failed read shows.
    if (specks < region.end - region.start) region = { ...region, start: region.start + specks };
  }
  if (placement === 'next_line' || placement === 'table_column') reasons.push('value_on_next_line');

  const placementScore = placement === 'same_line' ? 1 : placement === 'next_column' ? 0.97 : 0.93;
  const labelScore = anchorScore * position * placementScore * source;
  const hinted = hint ? dateOrderHint(hint) : undefined;
  const context: ParseContext = {
    ocr,
    dateOrder: hinted ?? dates.inferred ?? dates.defaultOrder,
    dateOrderFromDocument: Boolean(hinted ?? dates.inferred),
  };
  const cleanLabel = match.distance === 0 && position >= 0.95;
  const base = { page: page.page, placement, match, labelScore, cleanLabel };

  if (fact.type === 'address') {
    const parsed = parseAddress(
      { text: text.slice(region.start, region.end), start: region.start },
      followingPieces(page.lines, region.line, region.segment, text),
      ocr,
    );
    if (!parsed) return { ...base, value: null, score: 0, spans: [trimmedSpan(text, region.start, region.end)], reasons: [...reasons, 'unparseable_value'] };
    return { ...base, value: parsed.value, score: round(labelScore * parsed.quality), spans: parsed.spans, reasons: [...reasons, ...parsed.reasons] };
  }
  let parsed = PARSERS[fact.type](text.slice(region.start, region.end), context);
  if (!parsed && fact.type === 'money' && isCurrencyMarker(text.slice(region.start, region.end))) {
    // A currency in a column of its own ("Total ⇥ Rs ⇥ 7,297.03"): the amount is the next cell.
    const next = region.line.segments[region.segment.column + 1];
    const joined = next ? PARSERS.money(text.slice(region.start, next.end), context) : null;
    if (joined) parsed = joined;
  }
  if (!parsed && ocr && fact.type === 'date') {
    // OCR can leave a column-wide gap inside a value ("2⇥november 2025"): a date read across the
    // next cell of its line, which the calendar then has to accept, is taken at a lower score.
    const next = region.line.segments[region.segment.column + 1];
    const joined = next ? PARSERS.date(text.slice(region.start, next.end), context) : null;
    if (joined && region.start + joined.end > next!.start) {
      parsed = { ...joined, quality: joined.quality * 0.9, reasons: [...joined.reasons, 'ocr_corrected_characters'] };
    }
  }
  if (!parsed && ocr && placement === 'next_line' && (fact.type === 'date' || fact.type === 'money')) {
    // The line under a row of labels has fewer cells than the labels: OCR lost a column gap and
    // joined two values ("PATRICIA HERNANDEZ Jun 6, 2026" under "LESSEE ⇥ TENANCY START"). A date
    // or an amount that is the whole end of the joined cell is taken, at a lower score.
    const tail = valueEndingCell(text.slice(region.start, region.end), (part) => PARSERS[fact.type as 'date' | 'money'](part, context));
    if (tail) parsed = { ...tail, quality: tail.quality * 0.9, reasons: [...tail.reasons, 'ocr_corrected_characters'] };
  }
  if (!parsed) return { ...base, value: null, score: 0, spans: [trimmedSpan(text, region.start, region.end)], reasons: [...reasons, 'unparseable_value'] };
  return {
    ...base,
    value: parsed.value,
    score: round(labelScore * parsed.quality),
    spans: [{ start: region.start + parsed.start, end: region.start + parsed.end }],
    reasons: [...reasons, ...parsed.reasons],
  };
}

/** A value read from a later word of `cell` to its very end (the longest such tail), with offsets into `cell`. */
function valueEndingCell(cell: string, parse: (part: string) => ParsedValue | null): ParsedValue | null {
  const end = cell.trimEnd().length;
  for (const word of cell.matchAll(/(?<=\s)\S/g)) {
    const found = parse(cell.slice(word.index));
    if (found && found.start === 0 && word.index + found.end === end) return { ...found, start: word.index + found.start, end: word.index + found.end };
  }
  return null;
}

const PARSERS: Record<Exclude<FactType, 'address'>, (text: string, context: ParseContext) => ParsedValue | null> = {
  string: parseString,
  name: parseName,
  date: parseDate,
  money: parseMoney,
  number: parseNumber,
  id_number: parseIdNumber,
};

function segmentAt(line: PageLine, offset: number): Segment | undefined {
  return line.segments.find((s) => offset >= s.start && offset < s.end);
}

function closesWithColon(text: string, from: number, limit: number): boolean {
  return /^\s*(?:[([][^)\]]{1,24}[)\]]\s*)?[:=]/.test(text.slice(from, limit));
}

/** A cell that is a label rather than a value: it starts with an anchor, or reads "Something:". */
function isLabelCell(cell: Segment, matches: readonly AnchorMatch[], text: string): boolean {
  if (matches.some((m) => m.start >= cell.start && m.start < cell.end && !/[\p{L}\p{N}]/u.test(text.slice(cell.start, m.start)))) return true;
  return isLabelLike(cell.text);
}

/** An OCR cell of stray marks only ("'", ". ,", "|"): no letter, digit or currency in it. */
function isSpeckCell(cell: Segment): boolean {
  return !/[\p{L}\p{N}\p{Sc}]/u.test(cell.text) && cell.text.length <= 3;
}

/** "Something:" — but not an amount whose currency OCR gave a colon ("Rs: 8,013.99"). */
function isLabelLike(cell: string): boolean {
  return LABEL_LIKE_CELL.test(cell) && !startsWithAmount(cell);
}

function nextNonBlankLine(lines: readonly PageLine[], from: number, maxBlank: number): PageLine | undefined {
  let blanks = 0;
  for (let i = from + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (!isBlank(line)) return line;
    if (++blanks > maxBlank) return undefined;
  }
  return undefined;
}

/**
 * The cell of `below` under `segment`. Same column when both lines have as many cells. Otherwise
 * the text has lost the empty cells, so the cell can only be at or left of the same index: take
 * the rightmost such cell that is not a label ("Apt 4B ⇥ Due date: …" under "12 Oak Street").
 */
function alignedSegment(line: PageLine, segment: Segment, below: PageLine): Segment | undefined {
  if (below.segments.length === 0) return undefined;
  if (below.segments.length === line.segments.length) return below.segments[segment.column];
  const reachable = below.segments.slice(0, segment.column + 1);
  const value = [...reachable].reverse().find((cell) => !isLabelLike(cell.text));
  return value ?? reachable[reachable.length - 1];
}

/** For addresses: the cells under the value's cell on the following lines, until a blank line. */
function followingPieces(lines: readonly PageLine[], from: PageLine, segment: Segment, text: string): (AddressPiece | null)[] {
  const pieces: (AddressPiece | null)[] = [];
  let above = from;
  let cell = segment;
  for (let i = from.index + 1; i < lines.length && pieces.length < 6; i++) {
    const line = lines[i]!;
    if (isBlank(line)) break;
    const next = alignedSegment(above, cell, line);
    if (!next) break;
    pieces.push({ text: text.slice(next.start, next.end), start: next.start });
    above = line;
    cell = next;
  }
  return pieces;
}

function trimmedSpan(text: string, start: number, end: number): { start: number; end: number } {
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  // Unparseable text is evidence of what was there; a whole paragraph is not needed for that.
  return { start, end: Math.min(end, start + 120) };
}

function round(score: number): number {
  return Math.round(Math.min(1, Math.max(0, score)) * 1000) / 1000;
}

/** Values that are the same fact in different spellings (case, spacing, punctuation) never conflict. */
function comparisonKey(type: FactType, value: string): string {
  if (type === 'date' || type === 'money' || type === 'number') return value;
  return value.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

function decide(fact: FactDefinition, working: WorkingCandidate[], documentId: string, pages: PageIndex): ExtractedFact {
  // Stable order: best score first, then reading order.
  const ordered = [...working].sort(
    (a, b) =>
      (b.value === null ? -1 : b.score) - (a.value === null ? -1 : a.score) ||
      b.labelScore - a.labelScore ||
      a.page.page_index - b.page.page_index ||
      a.spans[0]!.start - b.spans[0]!.start,
  );
  const seen = new Set<string>();
  const unique = ordered.filter((c) => {
    const key = `${c.page.page_index}:${c.spans.map((s) => `${s.start}-${s.end}`).join(',')}:${c.value ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const candidates = unique.slice(0, MAX_CANDIDATES).map((c) => toCandidate(fact, c, documentId, pages));
  const parsed = unique.filter((c) => c.value !== null);
  const build = (fields: {
    status: ExtractedFact['status'];
    value: string | null;
    candidate_id: string | null;
    anchor_match_quality: number;
    reason_codes: string[];
    evidence: readonly Evidence[];
  }): ExtractedFact => ({
    // The order of api-spec §2.4, so stored and logged facts read like the spec.
    fact_id: fact.fact_id,
    fact_label: fact.label,
    status: fields.status,
    value: fields.value,
    candidate_id: fields.candidate_id,
    anchor_match_quality: fields.anchor_match_quality,
    source: 'document_extraction',
    reason_codes: fields.reason_codes,
    provenance: fields.evidence.map(provenanceOf),
    verification_metadata: [],
    evidence: [...fields.evidence],
    candidates,
  });
  if (parsed.length === 0) {
    const unparseable = unique.find((c) => c.cleanLabel);
    if (unparseable) {
      const candidate = candidates[unique.indexOf(unparseable)];
      const evidence = candidate ? [...candidate.evidence] : [];
      return build({ status: 'failed', value: null, candidate_id: null, anchor_match_quality: round(unparseable.labelScore), reason_codes: ['unparseable_value'], evidence });
    }
    return build({ status: 'needs_input', value: null, candidate_id: null, anchor_match_quality: 0, reason_codes: ['not_found'], evidence: [] });
  }

  const best = parsed[0]!;
  const bestCandidate = candidates[unique.indexOf(best)]!;
  const bestKey = comparisonKey(fact.type, best.value!);
  const rivals = parsed.filter((c) => comparisonKey(fact.type, c.value!) !== bestKey && c.score >= MIN_RESOLVED_SCORE && c.score >= best.score - CONFLICT_MARGIN);
  if (best.score < MIN_RESOLVED_SCORE) {
    return build({ status: 'needs_input', value: null, candidate_id: null, anchor_match_quality: best.score, reason_codes: ['low_confidence'], evidence: bestCandidate.evidence });
  }
  if (rivals.length > 0) {
    const involved = [best, ...rivals].map((c) => toCandidate(fact, c, documentId, pages));
    return build({
      status: 'needs_input',
      value: null,
      candidate_id: null,
      anchor_match_quality: best.score,
      reason_codes: ['conflicting_candidates'],
      evidence: involved.flatMap((c) => c.evidence),
    });
  }
  return build({
    status: 'resolved',
    value: best.value,
    candidate_id: bestCandidate.candidate_id,
    anchor_match_quality: best.score,
    reason_codes: [...new Set(best.reasons)],
    evidence: bestCandidate.evidence,
  });
}

function toCandidate(fact: FactDefinition, c: WorkingCandidate, documentId: string, pages: PageIndex): FactCandidate {
  const pageIndex = c.page.page_index;
  const evidence = c.spans.map((span) =>
    createEvidence(pages, { documentId, factId: fact.fact_id, pageIndex, charStart: span.start, charEnd: span.end }),
  );
  const first = c.spans[0]!;
  const last = c.spans[c.spans.length - 1]!;
  return {
    candidate_id: deterministicId('cand', documentId, fact.fact_id, pageIndex, c.match.start, c.match.end, first.start, last.end),
    value: c.value,
    anchor_match_quality: c.value === null ? 0 : c.score,
    page_index: pageIndex,
    placement: c.placement,
    anchor: {
      phrase: c.match.phrase,
      quote: c.page.text.slice(c.match.start, c.match.end),
      char_start: c.match.start,
      char_end: c.match.end,
      edit_distance: c.match.distance,
    },
    evidence,
    reason_codes: [...new Set(c.reasons)],
  };
}
