/**
 * A page read as two parts at once (issue 28 §5). Tesseract reads a page on one thread: the
 * bench's dense 300 dpi page spent ~1.3 s of its ~1.7 s in the page reading, while the second
 * core waited. Cut between two lines where the text above and below is about even, the page
 * becomes two images that two engine threads read side by side, and their words are put back
 * where they were on the page.
 *
 * The cut goes only where no ink is: between lines, never through one, so no letter, mark or
 * table row is split. Tesseract reads with sparse-text segmentation (tesseract.ts), which keeps no
 * page-wide reading order, and our own layout places words by their boxes, not by the engine's
 * order. Two parts still do not read exactly as the whole page (Tesseract reads a line in the
 * light of its image): see CONTEXT_LINES and MIN_LINES_TO_SPLIT, and docs/decisions.md (issue 28
 * §5, fourth session) for what that costs.
 */
import type { OcrWord } from './engine.ts';
import { inkLevel, luminanceAt, type Raster } from './raster.ts';

/**
 * Below this many pixels a page is read whole: a small image reads in a fraction of a second, and
 * a second engine thread would add its start-up (~1 s, once per process) for little gain. The
 * corpus's and the bench's 150 dpi A4 pages are 2.2 MP; a receipt photo downscaled is often less.
 */
export const MIN_PIXELS_TO_SPLIT = 1_000_000;
/**
 * A page with fewer lines of text than this is read whole. A page's reading time goes with its
 * text: the bench's typical A4 page (~20 lines) reads in ~0.5 s, well inside the 1.5 s a page may
 * take, and its dense page (~40 lines at 150 dpi) in ~1.6 s. Tesseract also reads a short page
 * slightly differently in parts (a line's neighbours are part of how it reads it), so the cut is
 * kept for the pages that need it: over corpus scans of 8–17 lines, splitting every page gained
 * nothing in speed and moved a few readings both ways.
 */
export const MIN_LINES_TO_SPLIT = 24;
/** Rows of ink that make a line of text between two blank bands (small print at 150 dpi is ~12 rows). */
const MIN_LINE_ROWS = 6;
/**
 * Each part must hold at least this share of the page's ink. Tesseract's time goes with the text
 * it reads, so the cut balances ink, not height: a letter whose text fills the top third is cut
 * within that text. A page whose only blank bands leave one part with most of the text is read
 * whole, as two parts would save little.
 */
const MIN_INK_SHARE = 0.3;
/**
 * A blank band must be this tall to be cut through: taller than the gap between a mark and its
 * letter ("É", "Å": 1–3 px at 150–200 dpi), which a cut must never separate. Lines of text at
 * 150–200 dpi have gaps of 6–15 px between them.
 */
const MIN_BLANK_ROWS = 5;
/** A row with at most this many ink pixels is blank (a speck too small for specks.ts, a scanner's dust). */
const MAX_STRAY_INK = 1;

/**
 * Lines of text each part reads beyond the cut, for context. Tesseract reads a line differently
 * when it is the first or last in its image: cut just above "Deposit: 6.299,09 €", a corpus scan
 * read "299,09" with or without paper added above; with the line before it in the image, "6.299,09"
 * as the whole page did. Each part therefore runs on to the blank band CONTEXT_LINES lines past the
 * cut, and keeps only the words on its own side.
 */
const CONTEXT_LINES = 2;

/** How a page is read in two parts: rows [0, topEnd) and [bottomStart, height), split at `cut`. */
export interface PagePlan {
  /** Words whose line's middle is above this row are the top part's, the rest the bottom's. */
  readonly cut: number;
  readonly topEnd: number;
  readonly bottomStart: number;
  /** Lines of text on the page (at least MIN_LINES_TO_SPLIT), counted by the blank bands between them. */
  readonly lines: number;
}

/**
 * Where to cut a page: in the middle of the blank band, between two lines of text, that splits
 * the page's ink most evenly, each part running CONTEXT_LINES lines past it. Undefined when the
 * page is too small to be worth two threads or no band leaves each side MIN_INK_SHARE of the ink
 * (a photo with shading has no blank rows, a table ruled top to bottom none): such a page is read
 * whole, as before.
 */
export function planParts(raster: Raster): PagePlan | undefined {
  const { width, height, rgba } = raster;
  if (width * height < MIN_PIXELS_TO_SPLIT) return undefined;
  const level = inkLevel(raster.paper);
  const ink = new Float64Array(height + 1); // ink[y]: ink pixels in the rows above y
  const inked = new Uint32Array(height + 1); // inked[y]: rows with ink above y
  const bands: Array<{ start: number; end: number }> = [];
  let start = -1;
  for (let y = 0; y < height; y++) {
    const row = inkInRow(rgba, width, y, level);
    ink[y + 1] = ink[y]! + row;
    const blank = row <= MAX_STRAY_INK;
    inked[y + 1] = inked[y]! + (blank ? 0 : 1);
    if (blank && start < 0) start = y;
    if (!blank && start >= 0) {
      // Bands inside the page only: the top margin has no ink above it to balance.
      if (start > 0 && y - start >= MIN_BLANK_ROWS) bands.push({ start, end: y });
      start = -1;
    }
  }
  const total = ink[height]!;
  if (total === 0) return undefined;
  // Lines: what lies between two blank bands, when it is inked for MIN_LINE_ROWS rows (a JPEG's
  // noise breaks a blank band into pieces with a stray row or two of ink between them).
  const edges = [0, ...bands.flatMap((b) => [b.start, b.end]), height];
  let lines = 0;
  for (let k = 0; k < edges.length; k += 2) if (inked[edges[k + 1]!]! - inked[edges[k]!]! >= MIN_LINE_ROWS) lines++;
  if (lines < MIN_LINES_TO_SPLIT) return undefined;
  const centre = (b: { start: number; end: number }) => Math.floor((b.start + b.end) / 2);
  const share = (b: { start: number; end: number }) => ink[b.start]! / total;
  let best = -1;
  for (const [k, b] of bands.entries()) {
    if (share(b) < MIN_INK_SHARE || share(b) > 1 - MIN_INK_SHARE) continue;
    if (best < 0 || Math.abs(share(b) - 0.5) < Math.abs(share(bands[best]!) - 0.5)) best = k;
  }
  if (best < 0) return undefined;
  const below = bands[best + CONTEXT_LINES];
  const above = bands[best - CONTEXT_LINES];
  return { cut: centre(bands[best]!), topEnd: below ? centre(below) : height, bottomStart: above ? centre(above) : 0, lines };
}

function inkInRow(rgba: Uint8ClampedArray, width: number, y: number, level: number): number {
  let ink = 0;
  for (let i = 4 * width * y, end = i + 4 * width; i < end; i += 4) {
    if (luminanceAt(rgba, i) < level) ink++;
  }
  return ink;
}

/** Rows [top, bottom) of a raster, sharing its pixels (a raster's rows are contiguous). */
export function rowsOf(raster: Raster, top: number, bottom: number): Raster {
  const row = 4 * raster.width;
  return { width: raster.width, height: bottom - top, rgba: raster.rgba.subarray(row * top, row * bottom), paper: raster.paper };
}

/**
 * The words of a page read in parts (`read[0]` of rows [0, topEnd), `read[1]` of rows
 * [bottomStart, height)), each part's on its own side of the cut, placed back on the page.
 */
export function joinParts(plan: PagePlan, read: readonly [readonly OcrWord[], readonly OcrWord[]]): OcrWord[] {
  const middle = (w: OcrWord) => (w.top + w.bottom) / 2;
  const above = read[0].filter((w) => middle(w) < plan.cut);
  const below = shiftWords(read[1], plan.bottomStart).filter((w) => middle(w) >= plan.cut);
  return [...above, ...below];
}

/** Words read on a part that starts `dy` rows down the page, placed back on the page. */
function shiftWords(words: readonly OcrWord[], dy: number): OcrWord[] {
  if (dy === 0) return [...words];
  return words.map((w) => ({
    ...w,
    top: w.top + dy,
    bottom: w.bottom + dy,
    ...(w.letters ? { letters: w.letters.map((l) => ({ ...l, y0: l.y0 + dy, y1: l.y1 + dy })) } : {}),
  }));
}
