/**
 * Finds letters whose mark the OCR reading left out. Tesseract reads "AMÉLIE", "BRANDÃO" or
 * "KÖHLER" in capitals as "AMELIE", "BRANDAO", "KOHLER" with full confidence: English, read first,
 * has the letters without the marks, and the mark above a capital sits where no English capital has
 * ink. The page's pixels show the mark: this module looks for ink above a word's cap line or below
 * its baseline (the cedilla of "Ç"), and for the slash through an "o" read without it ("Ø", "ø"),
 * so the word can be read again by languages that have those letters.
 */
import { fromEveryPack } from '../../locales/index.ts';
import type { Letter, LetterBox } from './engine.ts';
import { inkLevel, isInkIn, luminanceAt, type PixelArea } from './raster.ts';

/** A word's box on the page, with its line's band (ascender to descender). */
export interface WordBox {
  readonly text: string;
  readonly x0: number;
  readonly x1: number;
  readonly top: number;
  readonly bottom: number;
}

/**
 * Ink at least this share of the cap height above the cap line is a mark: an acute or a diaeresis
 * stands 20–40 % of the cap height above it; round capitals (O, C, G, S) overshoot by ~3 %.
 */
const MARK_RISE = 0.14;
/** Ink further above the cap line than this is the line above, not a mark. */
const MARK_REACH = 0.7;
/** A stroke this far below the baseline is a cedilla or the tail of a slash ("Ç", "Ø"). */
const MARK_DROP = 0.14;

/**
 * The marked letters of every locale pack that are letters of their own to Unicode ("Ø", "Æ", "Œ",
 * "Ł"): no mark comes apart from them, so a word holding one already shows its mark.
 */
const OWN_LETTERS = new Set(
  fromEveryPack((pack) => [...pack.ocr.markedLetters].map((letter) => letter.toUpperCase())).filter((letter) => [...letter].length === 1 && letter.normalize('NFD') === letter),
);

/** Words in capitals with no mark in their reading: the words a lost capital mark can hide in. */
export function isUnmarkedCapitals(text: string): boolean {
  return /^\p{Lu}{2,}[.,:;]?$/u.test(text) && text.normalize('NFD') === text && ![...text].some((letter) => OWN_LETTERS.has(letter));
}

/** The area of the page {@link hasLostCapitalMark} looks at for a word (not clipped to the page). */
export function markSearchArea(word: WordBox): { left: number; top: number; width: number; height: number } {
  const band = word.bottom - word.top;
  const left = Math.floor(word.x0);
  const top = Math.floor(word.top - MARK_REACH * band) - 1;
  return { left, top, width: Math.ceil(word.x1) - left + 1, height: Math.ceil(word.bottom + 0.3 * band) - top + 1 };
}

/**
 * Whether the word's pixels hold ink above its cap line or below its baseline that its letters do
 * not explain. The cap line and baseline are read from the word's own columns (the 40th and 90th
 * percentile of where each column's ink starts and ends), so the result does not depend on the font
 * or on how Tesseract measured the line.
 */
export function hasLostCapitalMark(area: PixelArea, word: WordBox): boolean {
  const band = word.bottom - word.top;
  if (band < 6) return false;
  const x0 = Math.max(area.left, Math.ceil(word.x0));
  const x1 = Math.min(area.left + area.width, Math.floor(word.x1));
  const y0 = Math.max(area.top, Math.floor(word.top - MARK_REACH * band));
  const y1 = Math.min(area.top + area.height, Math.ceil(word.bottom + 0.3 * band));
  if (x1 - x0 < 4 || y1 - y0 < 6) return false;
  const level = inkLevel(area.paper);
  const ink = (x: number, y: number) => isInkIn(area, x, y, level);
  // Where each column's ink starts and ends inside the band (the word's own letters).
  const bandTop = Math.max(y0, Math.floor(word.top));
  const bandBottom = Math.min(y1, Math.ceil(word.bottom));
  const tops: number[] = [];
  const bottoms: number[] = [];
  for (let x = x0; x < x1; x++) {
    let first = -1;
    let last = -1;
    for (let y = bandTop; y < bandBottom; y++) {
      if (ink(x, y)) {
        if (first < 0) first = y;
        last = y;
      }
    }
    if (first >= 0) { tops.push(first); bottoms.push(last); }
  }
  if (tops.length < 3) return false;
  tops.sort((a, b) => a - b);
  bottoms.sort((a, b) => a - b);
  const capLine = tops[Math.floor(tops.length * 0.4)]!;
  const baseline = bottoms[Math.floor(bottoms.length * 0.9)]!;
  const capHeight = baseline - capLine;
  if (capHeight < 5) return false;

  // Ink between MARK_RISE and MARK_REACH cap heights above the cap line, in at most a third of the
  // word's width (a rule or the line above would run across all of it), and with white above it.
  const rise = Math.floor(capLine - MARK_RISE * capHeight);
  const reach = Math.max(y0, Math.floor(capLine - MARK_REACH * capHeight));
  const dropFrom = Math.ceil(baseline + MARK_DROP * capHeight);
  const dropTo = Math.min(y1, Math.ceil(baseline + 0.5 * capHeight));
  const countColumns = (from: number, to: number) => {
    let columns = 0;
    let pixels = 0;
    for (let x = x0; x < x1; x++) {
      let any = false;
      for (let y = from; y <= to; y++) if (ink(x, y)) { any = true; pixels++; }
      if (any) columns++;
    }
    return { columns, pixels };
  };
  const width = x1 - x0;
  const letterWidth = width / Math.max(1, [...word.text].length);
  const above = rise > reach ? countColumns(reach, rise) : { columns: 0, pixels: 0 };
  // The row above the zone is white where the ink is a mark, not the foot of the line above.
  const ceiling = reach > y0 ? countColumns(reach - 1, reach - 1) : { columns: 0, pixels: 0 };
  // A mark's area grows with the square of the type size; below 5 pixels is scanner noise.
  const minPixels = Math.max(5, (capHeight * capHeight) / 30);
  const markAbove = above.pixels >= minPixels && above.columns >= 2 && above.columns <= Math.max(letterWidth * 1.5, width / 3) && ceiling.pixels <= 1;
  if (markAbove) return true;
  const below = dropTo > dropFrom ? countColumns(dropFrom, dropTo) : { columns: 0, pixels: 0 };
  // J and Q reach below the baseline themselves.
  return !/[JQ]/u.test(word.text) && below.pixels >= minPixels && below.columns >= 2 && below.columns <= letterWidth * 1.5;
}

/** Small letters whose top is the x-height: nothing of theirs stands above it. */
const X_HEIGHT_LETTERS = /^[acemnorsuvwxz]$/u;

/**
 * Whether there is ink above letter `k` of a word: where a mark would be, above the x-height for a
 * small letter or above the cap line for a capital, up to as high again as an x-height. The line
 * is the median top of the word's other letters of that height, so a mark the reading merged into
 * the letter's own box does not move it.
 */
export function hasMarkAbove(area: PixelArea, letters: readonly Letter[], k: number): boolean {
  return marksAbove(area, letters, k) > 0;
}

/**
 * How many marks stand above letter `k` of a word: the runs of columns with ink where a mark would
 * be (see {@link hasMarkAbove}), so 2 (or more, with noise) for the two dots of a diaeresis ("ö",
 * "Ä") and 1 for an acute, grave, circumflex, caron, tilde or ring, which are one stroke. 0 when
 * there is no ink there, or when no other letter of the word sets the line to measure from.
 */
export function marksAbove(area: PixelArea, letters: readonly Letter[], k: number): number {
  const letter = letters[k]!;
  const small = letter.text === letter.text.toLowerCase();
  // A capital starting a word in small letters has no peer: the ascenders (b, d, h, l) were tried
  // as its line, and found "marks" above 20 plain English capitals in 30 corpus scans ("Payroll",
  // "November": the capital or the line above reaching past them), so such a capital is not judged.
  const peers = letters.filter((l, i) => i !== k && (small ? X_HEIGHT_LETTERS.test(l.text) : /^\p{Lu}$/u.test(l.text) && l.text !== 'Q'));
  if (peers.length === 0) return 0;
  const tops = peers.map((l) => l.y0).sort((a, b) => a - b);
  const bottoms = peers.map((l) => l.y1).sort((a, b) => a - b);
  const line = tops[Math.floor(tops.length / 2)]!;
  const height = bottoms[Math.floor(bottoms.length / 2)]! - line;
  if (height < 4) return 0;
  const x0 = Math.max(area.left, Math.round(letter.x0));
  const x1 = Math.min(area.left + area.width, Math.round(letter.x1));
  const y0 = Math.max(area.top, Math.round(line - 0.9 * height));
  const y1 = Math.min(area.top + area.height, Math.round(line - 0.12 * height));
  const level = inkLevel(area.paper);
  let pixels = 0;
  let runs = 0;
  let inRun = false;
  for (let x = x0; x < x1; x++) {
    let column = 0;
    for (let y = y0; y < y1; y++) if (isInkIn(area, x, y, level)) column++;
    pixels += column;
    if (column > 0 && !inRun) runs++;
    inRun = column > 0;
  }
  return pixels >= 2 ? Math.max(1, runs) : 0;
}

/**
 * Whether an "o" or "O" has ink in its middle: the slash of "ø"/"Ø", which the reading left out.
 * An o's counter is paper from 30 % to 70 % of its width and height in any typeface; the slash
 * crosses the centre, leaning right. Boxes of fewer than 5 pixels a side are too small to tell.
 */
export function hasSlash(area: PixelArea, letter: LetterBox): boolean {
  const width = letter.x1 - letter.x0;
  const height = letter.y1 - letter.y0;
  if (width < 5 || height < 5) return false;
  const x0 = Math.max(area.left, Math.round(letter.x0 + 0.3 * width));
  const x1 = Math.min(area.left + area.width, Math.round(letter.x1 - 0.3 * width));
  const y0 = Math.max(area.top, Math.round(letter.y0 + 0.3 * height));
  const y1 = Math.min(area.top + area.height, Math.round(letter.y1 - 0.3 * height));
  const luminance = (x: number, y: number) => luminanceAt(area.data, ((y - area.top) * area.width + (x - area.left)) * 4);
  // A slash is thinner than the o's strokes and comes out of a scan grey, not black: the ink rule
  // is applied with the letter's own darkest pixel and its own paper, not black on the page's.
  let darkest = 255;
  let paper = 0;
  for (let y = Math.max(area.top, Math.floor(letter.y0)); y < Math.min(area.top + area.height, Math.ceil(letter.y1)); y++) {
    for (let x = Math.max(area.left, Math.floor(letter.x0)); x < Math.min(area.left + area.width, Math.ceil(letter.x1)); x++) {
      const l = luminance(x, y);
      darkest = Math.min(darkest, l);
      paper = Math.max(paper, l);
    }
  }
  if (paper - darkest < 60) return false;
  const ink = inkLevel(paper, darkest);
  // Where each middle row's ink is: a slash is a short run on most rows, further right the higher
  // the row ("Ø" leans like "/"); blur or noise in a counter is neither.
  const centres: Array<{ y: number; x: number }> = [];
  for (let y = y0; y < y1; y++) {
    let sum = 0;
    let count = 0;
    for (let x = x0; x < x1; x++) if (luminance(x, y) < ink) { sum += x; count++; }
    if (count > 0 && count <= Math.max(2, 0.6 * (x1 - x0))) centres.push({ y, x: sum / count });
  }
  if (y1 - y0 < 2 || centres.length < Math.max(2, (y1 - y0) * 0.6)) return false;
  const half = Math.floor(centres.length / 2);
  const mean = (list: ReadonlyArray<{ x: number }>) => list.reduce((total, c) => total + c.x, 0) / list.length;
  return mean(centres.slice(0, half)) - mean(centres.slice(centres.length - half)) >= Math.max(1, 0.1 * width);
}
