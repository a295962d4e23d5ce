/**
 * Second readings of a page's words, after Tesseract's page reading: words it was unsure of are
 * cut out, enlarged and read again as a line, and words whose marks the page reading lost ("KOHLER"
 * for "KÖHLER", "SORENSEN" for "SØRENSEN") are read again one marked language at a time. Each
 * reading replaces a word only when it is surer and changes no more than it may: letters, or only
 * marks, and only marks the page's pixels show.
 */
import { OCR_COLUMN_GAP } from '../canonical-text.ts';
import type { OcrEngine, OcrWord } from './engine.ts';
import { hasLostCapitalMark, hasMarkAbove, hasSlash, isUnmarkedCapitals, markSearchArea, marksAbove } from './lost-marks.ts';
import { eachAtOnce } from './lanes.ts';
import { cropForOcr, drawableOf, pixelArea, type Drawable, type PixelArea, type Raster } from './raster.ts';

/** The second readings of a page's words, on the page's pixels put on a canvas once for both. */
export async function readAgain(engine: OcrEngine, image: Raster, words: OcrWord[], signal: AbortSignal): Promise<OcrWord[]> {
  const page = await drawableOf(image);
  const reread = await rereadUnsureWords(engine, page, words, signal);
  return readMarksAgain(engine, page, reread, signal);
}

/**
 * Words with letters read below this confidence get a second, enlarged reading. Measured on the
 * tuned half of the corpus scans: words read right mostly sit at 95–96; marked letters read
 * without or with another mark at 81–95 ("Jorgen" 81, "HauptstraRe" 84, "Benoit" 87, "Koln" 91,
 * "Kôhler" 92; "Orla" 95 is out of reach). Tuned half (311 facts) with a threshold of 90 / 93 / 95:
 * 0.950 / 0.953 / 0.959, no new miss at 95.
 */
export const UNSURE_WORD_CONFIDENCE = 95;
/**
 * How tall (px, ascender to descender) the second reading makes an unsure word's line. At the
 * corpus scans' ~144 dpi a line's band is 17–27 px (median 20) and its letters 10–15 px, and
 * Tesseract tells marks apart best at 20–30 px x-height: tuned half (311 facts) with a fixed
 * enlargement of 2.5× 0.950, 3× 0.953 (but cut "Lefèvre" to "Lef"), 3.5× 0.953. The target is
 * that 3.5× of a median line, so a line that is already tall (a 300 dpi scan, a large heading) is
 * enlarged less: a fixed 3.5× made the bench's 300 dpi page 16 % slower for crops Tesseract did not
 * need that large.
 */
export const REREAD_BAND_HEIGHT = 70;
/** The most a line is enlarged: small print beyond this is read from blur, not letters. */
export const MAX_REREAD_SCALE = 3.5;

export function rereadScale(bandHeight: number): number {
  return Math.min(MAX_REREAD_SCALE, Math.max(1, REREAD_BAND_HEIGHT / Math.max(1, bandHeight)));
}

/**
 * Reads runs of unsure words again, each cut out of the page with a margin, enlarged and read as a
 * single line, and keeps a word of the second reading where it is more confident than the first.
 * Small text loses marks and letters first ("Jørgen Østergaard" read "Jorgen Ostergaard"). Enlarging
 * the whole page to a 20 px letter height instead (≤ 2×) gained as much (tuned half 0.947 → 0.951)
 * but made every page ~3× slower and broke other lines ("München" read "Miinchen", a name column
 * lost); 2.5× with a 28 px target was worse (0.945). A run is the consecutive unsure
 * words of one line; when the second reading splits or joins words differently the run is replaced
 * only as a whole, when its mean confidence is higher.
 */
async function rereadUnsureWords(engine: OcrEngine, page: Drawable, words: OcrWord[], signal: AbortSignal): Promise<OcrWord[]> {
  const unsure = (w: OcrWord) => w.confidence < UNSURE_WORD_CONFIDENCE && /\p{L}/u.test(w.text);
  if (!words.some(unsure)) return words;
  // Group words into lines by the overlap of their bands, in reading order.
  const order = words.map((w, i) => i).sort((a, b) => words[a]!.top - words[b]!.top || words[a]!.x0 - words[b]!.x0);
  const lines: number[][] = [];
  for (const i of order) {
    const w = words[i]!;
    const line = lines.find((l) => { const f = words[l[0]!]!; const mid = (w.top + w.bottom) / 2; return mid > f.top && mid < f.bottom; });
    if (line) line.push(i); else lines.push([i]);
  }
  const runs: number[][] = [];
  for (const line of lines) {
    line.sort((a, b) => words[a]!.x0 - words[b]!.x0);
    let run: number[] = [];
    for (const i of line) {
      const w = words[i]!;
      const previous = run.length > 0 ? words[run[run.length - 1]!]! : undefined;
      // A column gap ends a run as well: the two sides are different values.
      if (unsure(w) && (!previous || w.x0 - previous.x1 < OCR_COLUMN_GAP * (w.bottom - w.top))) run.push(i);
      else {
        if (run.length > 0) runs.push(run);
        run = unsure(w) ? [i] : [];
      }
    }
    if (run.length > 0) runs.push(run);
  }
  const replaced = new Map<number, OcrWord[]>();
  // Runs are read independently (each decides only its own words), as many at once as the engine
  // reads: the page's words as they came are what every run compares with.
  await eachAtOnce(runs, engine.readsAtOnce ?? 1, async (run) => {
    if (signal.aborted) return;
    const crop = await cropRun(page, words, run);
    if (!crop) return;
    const { x0, x1, top, bottom } = crop;
    // A page word outside the run can lie inside its crop: the page reading boxed "EMPLOYER" over
    // the "Blue" after it. A word of the second reading centred on such a word is that word read
    // again, and would be laid out twice ("EMPLOYER BlueBlue Ridge").
    const others = words.filter((w, i) => !run.includes(i) && w.bottom > top && w.top < bottom);
    const second = (await engine.recognizeLine!(crop.image, { signal })).words
      .filter((w) => w.text.trim() !== '')
      .map((w) => ({ ...w, ...onPage(crop, w), top, bottom }))
      .filter((w) => !others.some((o) => (w.x0 + w.x1) / 2 > o.x0 && (w.x0 + w.x1) / 2 < o.x1));
    if (second.length === 0) return;
    if (second.length === run.length) {
      for (const [k, i] of run.entries()) {
        const better = second[k]!;
        // Marks the second reading adds must be ink on the page (see marksOnPage).
        if (better.confidence > words[i]!.confidence && sameNonLetters(better.text, words[i]!.text) && (await marksOnPage(page, words[i]!, better.text))) {
          replaced.set(i, [{ ...better, x0: Math.max(better.x0, x0), x1: Math.min(better.x1, x1) }]);
        }
      }
    } else {
      const mean = (list: readonly OcrWord[]) => list.reduce((sum, w) => sum + w.confidence, 0) / list.length;
      const before = run.map((i) => words[i]!);
      const [joinedAfter, joinedBefore] = [second, before].map((list) => list.map((w) => w.text).join(''));
      if (mean(second) > mean(before) && sameNonLetters(joinedAfter!, joinedBefore!) && (await marksOnPage(page, { ...before[0]!, text: joinedBefore!, letters: undefined }, joinedAfter!))) {
        replaced.set(run[0]!, second);
        for (const i of run.slice(1)) replaced.set(i, []);
      }
    }
  });
  if (replaced.size === 0) return words;
  return words.flatMap((w, i) => replaced.get(i) ?? [w]);
}

interface RunCrop {
  /** The run cut out of the page and enlarged, as OCR is handed it. */
  readonly image: Uint8Array;
  /** Where the crop sits on the page (page pixels), and how much it was enlarged. */
  readonly x0: number;
  readonly x1: number;
  readonly y0: number;
  readonly scale: number;
  /** The run's band on the page. */
  readonly top: number;
  readonly bottom: number;
}

/** A word read in a crop, its box and letter boxes taken back to page pixels. */
function onPage(crop: RunCrop, word: OcrWord): Pick<OcrWord, 'x0' | 'x1' | 'letters'> {
  const { x0, y0, scale } = crop;
  return {
    x0: x0 + word.x0 / scale,
    x1: x0 + word.x1 / scale,
    letters: word.letters?.map((b) => ({ text: b.text, x0: x0 + b.x0 / scale, x1: x0 + b.x1 / scale, y0: y0 + b.y0 / scale, y1: y0 + b.y1 / scale })),
  };
}

/**
 * A run of consecutive words of one line cut out of the page for a second reading, enlarged by
 * {@link rereadScale}. The margin stops halfway to the neighbouring words, so none of their ink is
 * read with the run; above the band it is `above` band heights (0.2, or more for a mark reading).
 */
async function cropRun(page: Drawable, words: readonly OcrWord[], run: readonly number[], above = 0.2): Promise<RunCrop | undefined> {
  const { width, height: pageHeight } = page.raster;
  const first = words[run[0]!]!;
  const last = words[run[run.length - 1]!]!;
  const top = Math.min(...run.map((i) => words[i]!.top));
  const bottom = Math.max(...run.map((i) => words[i]!.bottom));
  const height = bottom - top;
  const neighbours = words.filter((w, i) => !run.includes(i) && (w.top + w.bottom) / 2 > top && (w.top + w.bottom) / 2 < bottom);
  const leftLimit = Math.max(0, ...neighbours.filter((w) => w.x1 <= first.x0).map((w) => (w.x1 + first.x0) / 2));
  const rightLimit = Math.min(width, ...neighbours.filter((w) => w.x0 >= last.x1).map((w) => (w.x0 + last.x1) / 2));
  const x0 = Math.max(leftLimit, first.x0 - 0.5 * height);
  const x1 = Math.min(rightLimit, last.x1 + 0.5 * height);
  const y0 = Math.max(0, top - above * height);
  const y1 = Math.min(pageHeight, bottom + 0.2 * height);
  if (x1 - x0 < 2 || y1 - y0 < 2) return undefined;
  const scale = rereadScale(height);
  return { image: await cropForOcr(page, { x0, y0, x1, y1 }, scale), x0, x1, y0, scale, top, bottom };
}

/**
 * How far above a word's band (in band heights) the crop for a mark reading reaches. A mark above
 * a capital stands up to ~0.3 of the band above the band's top, and the 0.2 margin of an unsure
 * word's crop cut it in half: "WÓJCIK" was read "WOJCIK" in every language, and "WÓJCIK" in Irish
 * with the whole mark in the crop. 180 corpus scans, every family unseen (issue 28, scans): F1 over
 * PNG scans 0.931 → 0.940, tax notices 0.906 → 0.918, tenancy agreements 0.848 → 0.861, nothing lower.
 */
const MARK_CROP_ABOVE = 0.5;

/**
 * A reading in one marked language is kept only when it is at least this sure. Measured on
 * tuned-half words whose mark was lost or misread: the right language reads them at 91–96
 * ("KÖHLER" 91 and "Köhler" 96 in German, "BRANDÃO" 96 in Portuguese, "Lefèvre" 95 in French),
 * the wrong ones mostly lower ("KÔHLER" 8 in French, "SÔNKE" 89, "Seán" 76 in Portuguese).
 */
const MARK_READING_CONFIDENCE = 90;
/**
 * Words in small letters read below this without any mark are read again for marks ("Benoit" 87,
 * "Lefevre" 90 were "Benoît", "Lefèvre"); a lowercase mark cannot be seen from the pixels alone,
 * because ascenders and i-dots stand in the same place.
 */
const UNSURE_UNMARKED_CONFIDENCE = 93;

/**
 * Why a word is read again for its marks, or undefined when it is not:
 * - `capital mark`: capitals read without marks where the page shows one ({@link hasLostCapitalMark});
 * - `slash`: an "o" with a slash through it ({@link hasSlash}), which may become "ø" and nothing else;
 *   for both, English, read first, is sure of "KOHLER" (96) and "SORENSEN" (95), so the marked
 *   reading needs only to be sure;
 * - `wrong mark`: a mark read as one stroke where the pixels show two dots, or as a diaeresis
 *   where they show one stroke ("Linkôping", "SEÄN" for "Linköping", "SEÁN": {@link marksAbove});
 *   as for capitals, the marked reading needs only to be sure;
 * - `unsure`: a word with a mark, or a word in small letters without one, that the page reading
 *   was unsure of ("Kôhler" 92 for "Köhler"); the marked reading must be surer than it.
 * Whatever the cue, a reading whose marks the pixels contradict is not taken.
 */
async function markReadingCue(word: OcrWord, page: Drawable): Promise<'capital mark' | 'wrong mark' | 'slash' | 'unsure' | undefined> {
  const letters = word.text.replace(/[.,:;]$/u, '');
  if (!/^\p{L}{2,}$/u.test(letters)) return undefined;
  const capitals = isUnmarkedCapitals(word.text);
  const os = word.letters?.filter((l) => l.text === 'o' || l.text === 'O') ?? [];
  if (capitals || os.length > 0) {
    const pixels = pixelsAround(page, word);
    if (capitals && hasLostCapitalMark(pixels, word)) return 'capital mark';
    if (os.some((o) => hasSlash(pixels, o))) return 'slash';
    if (capitals) return undefined;
  }
  const marked = unmarked(letters) !== letters;
  if (marked && word.letters && !markShapesAgree(pixelsAround(page, word), word, word.text)) return 'wrong mark';
  if (!/\p{Ll}/u.test(letters)) return undefined;
  return word.confidence < (marked ? UNSURE_WORD_CONFIDENCE : UNSURE_UNMARKED_CONFIDENCE) ? 'unsure' : undefined;
}

/** The pixels {@link hasLostCapitalMark} looks at for a word, cut out of the page alone. */
function pixelsAround(page: Drawable, word: OcrWord): PixelArea {
  return pixelArea(page.raster, markSearchArea(word));
}

/**
 * Words whose marks may be lost or wrong ({@link markReadingCue}) are read again, once in each
 * marked language on its own, and the surest reading that is the same word with only its marks
 * changed replaces the word's text (its box stays). Read all together, the languages do no better
 * than the page reading: Tesseract keeps the first language's word when it is sure enough of it.
 */
async function readMarksAgain(engine: OcrEngine, page: Drawable, words: OcrWord[], signal: AbortSignal): Promise<OcrWord[]> {
  const languages = engine.markLanguages ?? [];
  const recognizeLine = engine.recognizeLine?.bind(engine);
  if (!recognizeLine || languages.length === 0) return words;
  const out = [...words];
  // Each word is read again on its own and decides only its own text: as many at once as the
  // engine reads, each word's languages in order (the first sure reading ends its list).
  await eachAtOnce(words, engine.readsAtOnce ?? 1, async (word, i) => {
    if (signal.aborted) return;
    const cue = await markReadingCue(word, page);
    if (!cue) return;
    const crop = await cropRun(page, words, [i], MARK_CROP_ABOVE);
    if (!crop) return;
    let best = { text: word.text, confidence: cue === 'unsure' ? Math.max(word.confidence, MARK_READING_CONFIDENCE - 1) : MARK_READING_CONFIDENCE - 1 };
    // What the pixels showed is what may change: a slash seen makes "o" "ø", and nothing else.
    const allowed = cue === 'slash' ? (text: string) => text.replace(/ø/g, 'o').replace(/Ø/g, 'O') === word.text : (text: string) => unmarked(text) === unmarked(word.text);
    for (const language of languages) {
      // Marks at the crop's edges read as words of their own ("|", "I"): only words of letters count.
      const read = (await recognizeLine(crop.image, { signal, language })).words.filter((w) => /\p{L}{2}/u.test(w.text));
      if (read.length !== 1) continue;
      const { text, confidence } = read[0]!;
      if (
        confidence > best.confidence && text !== word.text && allowed(text) && sameNonLetters(text, word.text) &&
        (cue === 'capital mark' || cue === 'wrong mark' || cue === 'slash' || (await marksOnPage(page, word, text))) &&
        (!word.letters || markShapesAgree(pixelsAround(page, word), word, text))
      ) best = { text, confidence };
      // Tesseract's confidences top out at 96: no other language can be surer.
      if (best.confidence >= 96) break;
    }
    if (best.text !== word.text) out[i] = { ...word, text: best.text, confidence: best.confidence };
  });
  return out;
}

/**
 * Whether every mark `text` puts above a letter of the word is ink on the page, and every mark it
 * takes away is not: without pixels to show it, a reading in another language adds marks to plain
 * words ("Corporation" read "Córporation" in Irish), and an enlarged reading, surer of itself, drops
 * marks the page reading had right ("Öberg" read again "Oberg"). An i's dot stands where its mark
 * would, so "í" is taken as read; marks below a letter ("ç") are taken as read too.
 */
async function marksOnPage(page: Drawable, word: OcrWord, text: string): Promise<boolean> {
  const before = [...word.text];
  const after = [...text];
  const markedAbove = (c: string) => /^[^iIjıİ][\u0300-\u030a]/u.test(c.normalize('NFD'));
  if (after.length !== before.length || !word.letters) {
    // Letters that cannot be lined up with their boxes: no more marks than the page reading had.
    return after.filter(markedAbove).length <= before.filter(markedAbove).length;
  }
  let pixels: PixelArea | undefined;
  for (let k = 0; k < after.length; k++) {
    if (after[k] === before[k] || markedAbove(after[k]!) === markedAbove(before[k]!)) continue;
    pixels ??= pixelsAround(page, word);
    // A mark added must be ink on the page; a mark taken away must not be ("Öberg" read again
    // "Oberg" with more confidence: the dots are still there).
    if (hasMarkAbove(pixels, word.letters, k) !== markedAbove(after[k]!)) return false;
  }
  return true;
}

/**
 * Whether the marks `text` puts above the word's letters have the shape the pixels show: two dots
 * for a diaeresis, one stroke for any other mark ({@link marksAbove}). Letters whose pixels show
 * nothing to count, dotted i and j, and readings that cannot be lined up with the letters' boxes
 * are not judged.
 */
function markShapesAgree(pixels: PixelArea, word: OcrWord, text: string): boolean {
  const after = [...text];
  if (!word.letters || after.length !== word.letters.length) return true;
  for (let k = 0; k < after.length; k++) {
    const decomposed = after[k]!.normalize('NFD');
    if (!/^[^iIjıİ][\u0300-\u030a]/u.test(decomposed)) continue;
    const seen = marksAbove(pixels, word.letters, k);
    if (seen === 0) continue;
    // Two dots or more: noise beside a diaeresis can add a third run, never take one away.
    if (decomposed.includes('\u0308') !== seen >= 2) return false;
  }
  return true;
}

/** Letters without their marks; "Ø" is a letter of its own to Unicode, an O with a slash to OCR. */
function unmarked(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').replace(/Ø/g, 'O').replace(/ø/g, 'o');
}

/**
 * The second reading may change letters only: the crop's edge reads as stray marks ("Rd," came
 * back "Rd,-"), and digits and punctuation are what the value repairs downstream check.
 */
function sameNonLetters(a: string, b: string): boolean {
  const skeleton = (text: string) => text.normalize('NFD').replace(/[\p{L}\p{M}\s]+/gu, '');
  return skeleton(a) === skeleton(b);
}
