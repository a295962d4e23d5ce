import type { PositionedFragment } from './canonical-text.ts';

/**
 * Where each character of a canonical page text came from, so evidence can point into the
 * document as uploaded (contract §9 `source`) while its `location` keeps indexing the canonical
 * text. Built once per page during extraction; never stored (the evidence `source` is).
 *
 * - `text` (plain text, DOCX): for canonical code unit i, the range `start[i]..end[i]` of the
 *   original decoded text it stands for. A folded whitespace run maps to the whole run (possibly
 *   empty where the canonical text inserted a separator).
 * - `box` (PDF text layer, OCR): for canonical code unit i, its glyph box `x0, top, x1, bottom`
 *   at `boxes[4i..4i+3]` in the page's unit (y down); NaN for whitespace the layout inserted.
 */
export type PageOrigin =
  | { readonly kind: 'text'; readonly start: Int32Array; readonly end: Int32Array }
  | { readonly kind: 'box'; readonly boxes: Float32Array };

/** Characters canonicalisation folds or removes: whitespace, invisible formatting, C0/C1 controls. */
const FOLDED = /[\s\u200B-\u200D\u2060\uFEFF\u00AD\u0000-\u001F\u007F-\u009F]/;

/**
 * Aligns a canonical text with the raw text it was made from. Canonicalisation only folds
 * whitespace runs, drops invisible and control characters and composes to NFC, so every other
 * character appears in both in the same order: one linear walk pairs them.
 */
export function alignTextOrigin(raw: string, canonical: string): PageOrigin {
  const n = canonical.length;
  const start = new Int32Array(n);
  const end = new Int32Array(n);
  let j = 0;
  for (let i = 0; i < n; i++) {
    const c = canonical[i]!;
    if (c === ' ' || c === '\t' || c === '\n') {
      const from = j;
      while (j < raw.length && FOLDED.test(raw[j]!)) j++;
      start[i] = from;
      end[i] = j;
      continue;
    }
    while (j < raw.length && raw[j] !== c && FOLDED.test(raw[j]!)) j++;
    if (raw[j] === c) {
      start[i] = j;
      end[i] = ++j;
      continue;
    }
    // NFC composed a base letter and its combining marks ("e" + U+0301 → "é") into this code unit.
    let k = 2;
    while (k <= 8 && j + k <= raw.length && raw.slice(j, j + k).normalize('NFC') !== c) k++;
    start[i] = j;
    if (k <= 8 && j + k <= raw.length) j += k;
    end[i] = j;
  }
  return { kind: 'text', start, end };
}

/**
 * Glyph boxes for a positioned page: `placed` are the fragments in the order layoutFragments
 * wrote them (text already normalised), so their non-whitespace characters are exactly the
 * canonical text's non-whitespace characters, in order. A character's box is its share of the
 * fragment's width (by `advances` when known, else equal shares) and the fragment's ink band.
 * `pixelsPerUnit` converts fragment coordinates to the page's unit.
 */
export function boxOrigin(
  canonical: string,
  placed: readonly PositionedFragment[],
  pixelsPerUnit = 1,
  /** Maps a point of the (deskewed) OCR image, in page units, back onto the page as uploaded. */
  toPage?: (x: number, y: number) => readonly [number, number],
): PageOrigin {
  const boxes = new Float32Array(canonical.length * 4).fill(Number.NaN);
  let f = 0;
  let k = 0;
  let offsets: Float64Array | undefined;
  const next = () => {
    f++;
    k = 0;
    offsets = undefined;
  };
  for (let i = 0; i < canonical.length; i++) {
    const c = canonical[i]!;
    if (c === ' ' || c === '\t' || c === '\n') continue;
    for (;;) {
      const fragment = placed[f];
      if (!fragment) return { kind: 'box', boxes };
      if (k >= fragment.text.length) { next(); continue; }
      if (fragment.text[k] === c) break;
      k++;
    }
    const fragment = placed[f]!;
    offsets ??= advanceOffsets(fragment);
    const top = fragment.ink?.top ?? fragment.top;
    const bottom = fragment.ink?.bottom ?? fragment.bottom;
    let x0 = offsets[k]! / pixelsPerUnit;
    let y0 = top / pixelsPerUnit;
    let x1 = offsets[k + 1]! / pixelsPerUnit;
    let y1 = bottom / pixelsPerUnit;
    if (toPage) {
      // The glyph's box on the uploaded page is the bounding box of its four turned corners.
      const corners = [toPage(x0, y0), toPage(x1, y0), toPage(x0, y1), toPage(x1, y1)];
      x0 = Math.min(...corners.map((c) => c[0]));
      x1 = Math.max(...corners.map((c) => c[0]));
      y0 = Math.min(...corners.map((c) => c[1]));
      y1 = Math.max(...corners.map((c) => c[1]));
    }
    boxes[4 * i] = x0;
    boxes[4 * i + 1] = y0;
    boxes[4 * i + 2] = x1;
    boxes[4 * i + 3] = y1;
    k++;
  }
  return { kind: 'box', boxes };
}

/** x of each code unit's left edge (and the right edge at the end) across the fragment. */
function advanceOffsets(fragment: PositionedFragment): Float64Array {
  const n = fragment.text.length;
  const weights = fragment.advances && fragment.advances.length === n ? fragment.advances : undefined;
  const total = weights ? weights.reduce((a, b) => a + b, 0) : n;
  const out = new Float64Array(n + 1);
  const width = fragment.x1 - fragment.x0;
  let sum = 0;
  for (let i = 0; i <= n; i++) {
    out[i] = fragment.x0 + (total > 0 ? (width * sum) / total : 0);
    if (i < n) sum += weights ? weights[i]! : 1;
  }
  return out;
}

export type EvidenceSource =
  | { kind: 'text'; char_start: number; char_end: number }
  | { kind: 'box'; page_index: number; x: number; y: number; width: number; height: number };

/**
 * The `source` of canonical span `start..end` on a page: the original text range it came from,
 * or the box around its glyphs. Without an origin (a page built from a string) the canonical text
 * is its own original. Boxes are rounded outwards to 1/100 unit so they still enclose the glyphs.
 */
export function sourceOf(origin: PageOrigin | undefined, pageIndex: number, start: number, end: number): EvidenceSource {
  if (!origin) return { kind: 'text', char_start: start, char_end: end };
  if (origin.kind === 'text') {
    let first = start;
    let last = end - 1;
    while (first < last && origin.start[first] === origin.end[first]) first++;
    while (last > first && origin.start[last] === origin.end[last]) last--;
    return { kind: 'text', char_start: origin.start[first]!, char_end: Math.max(origin.start[first]!, origin.end[last]!) };
  }
  let x0 = Infinity;
  let top = Infinity;
  let x1 = -Infinity;
  let bottom = -Infinity;
  for (let i = start; i < end; i++) {
    const left = origin.boxes[4 * i]!;
    if (Number.isNaN(left)) continue;
    x0 = Math.min(x0, left);
    top = Math.min(top, origin.boxes[4 * i + 1]!);
    x1 = Math.max(x1, origin.boxes[4 * i + 2]!);
    bottom = Math.max(bottom, origin.boxes[4 * i + 3]!);
  }
  if (!Number.isFinite(x0)) return { kind: 'box', page_index: pageIndex, x: 0, y: 0, width: 0, height: 0 };
  const floor = (v: number) => Math.floor(v * 100) / 100;
  const ceil = (v: number) => Math.ceil(v * 100) / 100;
  const x = floor(x0);
  const y = floor(top);
  return { kind: 'box', page_index: pageIndex, x, y, width: ceil(x1 - x), height: ceil(bottom - y) };
}
