import type { PageLine } from './lines.ts';

/**
 * Finding a fact's label ("anchor") on a line: case-, spacing- and punctuation-insensitive, and
 * tolerant of the typos OCR makes.
 *
 * Both the anchor and the line are folded to lowercase letters and digits with single spaces
 * between words (punctuation counts as a space, accents are dropped). Matching is a weighted edit
 * distance over the folded text (Sellers' approximate substring search) where the match must begin
 * at a word start and end at a word end (or where digits follow a letter). Costs, in half-edits so
 * they stay integers:
 *  - 2 for an ordinary substitution, insertion or deletion;
 *  - 1 for inserting or deleting a space ("Paydate", "Employee  name" after OCR merges), for
 *    substituting an OCR look-alike (0/o, 1/l/i, 5/s, 8/b, 2/z, 6/g) and for the two-for-one
 *    look-alikes "rn"/"m", "vv"/"w", "cl"/"d".
 * Allowed cost grows with the anchor's length: ≤ 4 letters must match exactly (a one-letter typo in
 * "Date" is another word), 5–9 letters allow one edit, 10 or more allow two. The thresholds alone
 * cannot keep apart anchors one edit from each other — the income case type has "Employee" and
 * "Employer" — so resolveAnchorMatches lets an exact match suppress a fuzzy rival at the same place.
 */

export interface AnchorSpec {
  /** Which fact this anchor belongs to. */
  readonly factId: string;
  /** The anchor as configured. */
  readonly phrase: string;
}

export interface AnchorMatch extends AnchorSpec {
  /** Absolute offsets of the matched text in the page. */
  readonly start: number;
  readonly end: number;
  /** Weighted cost in edits (half-units resolved: 0.5 steps). */
  readonly distance: number;
  /** Length of the folded anchor, for tie-breaking (longer anchors are more specific). */
  readonly length: number;
  readonly line: number;
}

interface Folded {
  readonly text: string;
  /** For each folded character, the index of the source character in the line. */
  readonly map: readonly number[];
}

/** Lowercase letters and digits; every run of anything else becomes one space. */
export function fold(source: string): Folded {
  let text = '';
  const map: number[] = [];
  for (let i = 0; i < source.length; i++) {
    const code = source.charCodeAt(i);
    let base: string;
    if (code < 128) {
      // ASCII fast path: nearly all label text, and ~20× cheaper than normalising every character.
      if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) base = source[i]!;
      else if (code >= 65 && code <= 90) base = String.fromCharCode(code + 32);
      else base = '';
    } else {
      base = source[i]!.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
      if (!/^[\p{L}\p{N}]+$/u.test(base)) base = '';
    }
    if (base !== '') {
      for (const b of base) { text += b; map.push(i); }
    } else if (text !== '' && !text.endsWith(' ')) {
      text += ' ';
      map.push(i);
    }
  }
  if (text.endsWith(' ')) { text = text.slice(0, -1); map.pop(); }
  return { text, map };
}

/** ASCII look-alike pairs OCR confuses, as a 128 × 128 table of substitution costs. */
const SUBSTITUTION = (() => {
  const table = new Uint8Array(128 * 128).fill(2);
  for (let c = 0; c < 128; c++) table[c * 128 + c] = 0;
  for (const pair of ['0o', '1l', '1i', 'li', '5s', '8b', '2z', '6g']) {
    const [x, y] = [pair.charCodeAt(0), pair.charCodeAt(1)];
    table[x * 128 + y] = 1;
    table[y * 128 + x] = 1;
  }
  return table;
})();
const SPLIT_LOOK_ALIKES: Record<string, string> = { m: 'rn', w: 'vv', d: 'cl' };
const SPACE = 32;

function substitutionCost(a: number, b: number): number {
  if (a === b) return 0;
  return a < 128 && b < 128 ? SUBSTITUTION[a * 128 + b]! : 2;
}

function isDigitCode(code: number): boolean {
  return code >= 48 && code <= 57;
}

function indelCost(code: number): number {
  return code === SPACE ? 1 : 2;
}

/** Allowed cost (half-units) for an anchor of this many letters and digits. */
export function allowedCost(letters: number): number {
  if (letters <= 4) return 0;
  if (letters <= 9) return 2;
  return 4;
}

let countedLine = '';
let lineCounts = new Map<number, number>();

/**
 * A cheap bound before the O(anchor × line) search: every anchor character a match does not find
 * unchanged in the line costs at least one half-unit (a look-alike, a split or a deletion), so a
 * line holding fewer than `anchor.length - maxCost` of the anchor's characters, counted with
 * their repeats, cannot hold a match. Most lines of a long document share few characters with a
 * label; this made a 16,000-line text's extraction several times faster. The line's counts are
 * kept for the next anchor, which is searched in the same line.
 */
function tooFewShared(anchor: string, line: string, maxCost: number): boolean {
  if (line !== countedLine) {
    countedLine = line;
    lineCounts = new Map();
    for (let j = 0; j < line.length; j++) {
      const code = line.charCodeAt(j);
      lineCounts.set(code, (lineCounts.get(code) ?? 0) + 1);
    }
  }
  const needed = anchor.length - maxCost;
  if (needed <= 0) return false;
  let shared = 0;
  for (const [code, count] of characterCounts(anchor)) shared += Math.min(count, lineCounts.get(code) ?? 0);
  return shared < needed;
}

/** An anchor's characters with their repeats, counted once per anchor (a document's lines ask again and again). */
const anchorCounts = new Map<string, ReadonlyMap<number, number>>();
function characterCounts(anchor: string): ReadonlyMap<number, number> {
  let counts = anchorCounts.get(anchor);
  if (counts === undefined) {
    const counting = new Map<number, number>();
    for (let i = 0; i < anchor.length; i++) counting.set(anchor.charCodeAt(i), (counting.get(anchor.charCodeAt(i)) ?? 0) + 1);
    // Anchors come from case types: bounded, but a long-running process sees many; keep the cache small.
    if (anchorCounts.size >= 10_000) anchorCounts.clear();
    anchorCounts.set(anchor, counting);
    counts = counting;
  }
  return counts;
}

/**
 * All word-aligned approximate occurrences of `anchor` in `line` within the allowed cost, as
 * [foldedStart, foldedEnd, cost]. Overlapping occurrences are thinned to the cheapest.
 */
function approximateOccurrences(anchor: string, line: string, maxCost: number): Array<[number, number, number]> {
  const m = anchor.length;
  const n = line.length;
  if (m === 0 || n === 0) return [];
  if (tooFewShared(anchor, line, maxCost)) return [];
  const INF = 1e9;
  // Two rolling rows of the DP: cost of matching anchor[0..i) ending at line[0..j), and where that
  // match began. Typed arrays: this loop is most of fact extraction's time.
  let prevCost = new Int32Array(n + 1);
  let prevStart = new Int32Array(n + 1);
  let currCost = new Int32Array(n + 1);
  let currStart = new Int32Array(n + 1);
  const lineCodes = new Uint16Array(n);
  for (let j = 0; j < n; j++) lineCodes[j] = line.charCodeAt(j);
  for (let j = 0; j <= n; j++) {
    const wordStart = j === 0 || lineCodes[j - 1] === SPACE;
    prevCost[j] = wordStart && j < n && lineCodes[j] !== SPACE ? 0 : INF;
    prevStart[j] = j;
  }
  for (let i = 1; i <= m; i++) {
    const a = anchor.charCodeAt(i - 1);
    const aDel = indelCost(a);
    const split = SPLIT_LOOK_ALIKES[anchor[i - 1]!];
    const split0 = split ? split.charCodeAt(0) : -1;
    const split1 = split ? split.charCodeAt(1) : -1;
    currCost[0] = Math.min(prevCost[0]! + aDel, INF);
    currStart[0] = prevStart[0]!;
    for (let j = 1; j <= n; j++) {
      const b = lineCodes[j - 1]!;
      let best = prevCost[j - 1]! + substitutionCost(a, b);
      let start = prevStart[j - 1]!;
      const del = prevCost[j]! + aDel; // anchor char missing from the line
      if (del < best) { best = del; start = prevStart[j]!; }
      const ins = currCost[j - 1]! + indelCost(b); // extra char in the line
      if (ins < best) { best = ins; start = currStart[j - 1]!; }
      // Two characters OCR reads for one ("rn" for "m", "vv" for "w", "cl" for "d"): one half-edit.
      if (b === split1 && j >= 2 && lineCodes[j - 2] === split0) {
        const cost = prevCost[j - 2]! + 1;
        if (cost < best) { best = cost; start = prevStart[j - 2]!; }
      }
      currCost[j] = best < INF ? best : INF;
      currStart[j] = start;
    }
    [prevCost, currCost] = [currCost, prevCost];
    [prevStart, currStart] = [currStart, prevStart];
  }
  const found: Array<[number, number, number]> = [];
  for (let j = 1; j <= n; j++) {
    const cost = prevCost[j]!;
    if (cost > maxCost) continue;
    // A label may also end where digits start: OCR drops the space between a label and its value
    // ("DATE OF REGISTRATION8. juni 2026"), and no label ends in a letter glued to a digit.
    const wordEnd = j === n || line[j] === ' ' || (isDigitCode(lineCodes[j]!) && !isDigitCode(lineCodes[j - 1]!) && !isDigitCode(anchor.charCodeAt(m - 1)));
    const start = prevStart[j]!;
    if (!wordEnd || line[j - 1] === ' ' || start >= j) continue;
    found.push([start, j, cost]);
  }
  // Keep the cheapest of overlapping occurrences (ties: the one closest to the anchor's length).
  found.sort((x, y) => x[2] - y[2] || Math.abs(x[1] - x[0] - m) - Math.abs(y[1] - y[0] - m) || x[0] - y[0]);
  const kept: Array<[number, number, number]> = [];
  for (const occurrence of found) {
    if (kept.every((k) => occurrence[1] <= k[0] || occurrence[0] >= k[1])) kept.push(occurrence);
  }
  return kept.sort((x, y) => x[0] - y[0]);
}

/** Characters of a cell searched for anchors. */
export const MAX_SEARCHED_CELL = 2_000;

export interface PreparedAnchor extends AnchorSpec {
  readonly folded: string;
  readonly letters: number;
  /**
   * For the bare form of an anchor with a qualifier ("Premium" of "Premium (yearly)"): the folded
   * qualifier. The bare form matches only where the page gives no other qualifier.
   */
  readonly droppedQualifier?: string;
}

/** A parenthesised or bracketed qualifier: "(yearly)", "[incl. VAT]". */
const QUALIFIER = /\s*[([][^)\]]{1,40}[)\]]/g;

/**
 * Each anchor as configured, and for one with a qualifier ("Premium (yearly)", "Amount (incl.
 * VAT)") also its bare form and its qualifier-first form ("Yearly premium"): a document may
 * print just "Premium" where the case type's author wrote the qualifier to be precise. The bare form costs half an edit, so the full form wins
 * wherever both match, and it never reads a label whose own qualifier differs ("Premium
 * (monthly)" is another figure).
 */
export function prepareAnchors(specs: readonly AnchorSpec[]): PreparedAnchor[] {
  return specs
    .flatMap((spec) => {
      const folded = fold(spec.phrase).text;
      const full: PreparedAnchor = { ...spec, folded, letters: folded.replace(/ /g, '').length };
      const qualifiers = spec.phrase.match(QUALIFIER);
      if (!qualifiers) return [full];
      const bare = fold(spec.phrase.replace(QUALIFIER, ' ')).text;
      if (bare === '' || bare === folded) return [full];
      const droppedQualifier = fold(qualifiers.join(' ')).text;
      // "Yearly premium": the qualifier said first, as many forms print it. Same half-edit cost.
      const fronted = `${droppedQualifier} ${bare}`;
      return [
        full,
        { ...spec, folded: bare, letters: bare.replace(/ /g, '').length, droppedQualifier },
        { ...spec, folded: fronted, letters: fronted.replace(/ /g, '').length, droppedQualifier },
      ];
    })
    .filter((a) => a.folded !== '');
}

/**
 * Where a label printed with a qualifier ends: after the closing bracket when the match stopped
 * inside one ("Amount (incl. VAT" + ")"), since folding dropped the bracket from the match.
 */
function labelEnd(text: string, from: number, end: number): number {
  const quoted = text.slice(from, end);
  const open = (quoted.match(/[([]/g) ?? []).length - (quoted.match(/[)\]]/g) ?? []).length;
  if (open <= 0) return end;
  const close = text.slice(end).match(/^[.\s]*[)\]]/);
  return close ? end + close[0].length : end;
}

/**
 * Every anchor occurrence on one line, before overlap resolution. Each cell is searched on its
 * own: a label never spans a column gap, so "TOTAL GROSS ⇥ Pay Date" holds "Total gross" and
 * "Pay date", not "Gross pay".
 */
export function findAnchorsInLine(line: PageLine, anchors: readonly PreparedAnchor[]): AnchorMatch[] {
  const matches: AnchorMatch[] = [];
  for (const segment of line.segments) {
    // Labels start cells; a cell longer than this is prose, and searching all of it would make
    // a pathological one-line document cost seconds (the search is O(anchor × cell length)).
    const folded = fold(segment.text.slice(0, MAX_SEARCHED_CELL));
    if (folded.text === '') continue;
    for (const anchor of anchors) {
      for (const [from, to, cost] of approximateOccurrences(anchor.folded, folded.text, allowedCost(anchor.letters))) {
        const startInCell = folded.map[from]!;
        const endInCell = labelEnd(segment.text, startInCell, folded.map[to - 1]! + 1);
        if (anchor.droppedQualifier !== undefined) {
          // The bare form of "Premium (yearly)" must not read "Premium (monthly)".
          const own = segment.text.slice(endInCell).match(/^\s*[([]([^)\]]{1,40})[)\]]/);
          if (own && fold(own[1]!).text !== anchor.droppedQualifier) continue;
        }
        matches.push({
          factId: anchor.factId,
          phrase: anchor.phrase,
          start: segment.start + startInCell,
          end: segment.start + endInCell,
          distance: cost / 2 + (anchor.droppedQualifier !== undefined ? 0.5 : 0),
          length: anchor.folded.length,
          line: line.index,
        });
      }
    }
  }
  return matches;
}

/**
 * Overlapping matches on a line are one label, so only one reading of it survives:
 * - matches of the same fact merge into their union ("Total gross" + "Gross pay" on
 *   "Total gross pay:" is one label of gross_pay), except that an exact match drops a fuzzy one
 *   it overlaps ("Employee. James" is "Employee", not "Employee name" with two typos);
 * - across facts the better match wins: lower distance, then the longer anchor. An exact
 *   "Employer" therefore suppresses the one-typo reading of it as "Employee", and "Employee name"
 *   suppresses nothing of its own fact but beats any fuzzy rival;
 * - exact ties across facts are kept (genuinely ambiguous labels; the value parsers decide).
 */
export function resolveAnchorMatches(matches: readonly AnchorMatch[]): AnchorMatch[] {
  // Merge same-fact overlaps first.
  const byFact = new Map<string, AnchorMatch[]>();
  for (const match of [...matches].sort((a, b) => a.start - b.start || b.end - a.end)) {
    const list = byFact.get(match.factId) ?? [];
    const last = list[list.length - 1];
    if (last && match.start < last.end && (match.distance === 0) !== (last.distance === 0)) {
      // An exact reading beats a fuzzy one of the same fact: "Employee. James" is "Employee"
      // followed by a name, not "Employee name" with two typos.
      if (match.distance === 0) list[list.length - 1] = match;
    } else if (last && match.start < last.end) {
      const better = match.distance < last.distance || (match.distance === last.distance && match.length > last.length) ? match : last;
      list[list.length - 1] = {
        ...better,
        start: Math.min(last.start, match.start),
        end: Math.max(last.end, match.end),
        distance: Math.min(last.distance, match.distance),
        length: Math.max(last.length, match.length),
      };
    } else {
      list.push(match);
    }
    byFact.set(match.factId, list);
  }
  const merged = [...byFact.values()].flat();
  merged.sort((a, b) => a.distance - b.distance || b.length - a.length || a.start - b.start || (a.factId < b.factId ? -1 : 1));
  const kept: AnchorMatch[] = [];
  for (const match of merged) {
    const rivals = kept.filter((k) => match.start < k.end && k.start < match.end);
    if (rivals.every((k) => k.distance === match.distance && k.length === match.length)) kept.push(match);
  }
  return kept.sort((a, b) => a.start - b.start || (a.factId < b.factId ? -1 : 1));
}
