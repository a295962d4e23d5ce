import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { layoutFragments, OCR_COLUMN_GAP, type PositionedFragment } from './canonical-text.ts';
import { boxOrigin } from './origin.ts';
import { documentFailure, documentOk, type DocumentResult, type PageSize, type PageText } from './types.ts';

/** One recognised word, positioned in image pixels (y grows downwards). */
export interface OcrWord {
  readonly text: string;
  /** 0..100 as the engine reports it. */
  readonly confidence: number;
  readonly x0: number;
  readonly x1: number;
  /**
   * The vertical band of the word's text line at this word (ascender to descender), not the
   * word's own box: a word's box depends on its letters ("a" vs "Jy") and grows around any speck
   * touching it, which misplaces words into the neighbouring line.
   */
  readonly top: number;
  readonly bottom: number;
}

export interface OcrImageResult {
  readonly words: readonly OcrWord[];
}

/**
 * The OCR port. Implementations keep their expensive state (a WASM engine and ~15 MB of model)
 * alive across pages and documents; `close()` releases it, and a later `recognize` is allowed to
 * start it again, which is also how a stuck recognition is abandoned (see the signal).
 */
export interface OcrEngine {
  /**
   * Recognises one PNG or JPEG image. When `signal` aborts while this image is being recognised
   * the engine is torn down (there is no other way to stop a running WASM call) and the promise
   * rejects; later calls start a fresh engine.
   */
  recognize(image: Uint8Array, options?: { signal?: AbortSignal }): Promise<OcrImageResult>;
  /**
   * Recognises an image holding one line of text (Tesseract page segmentation 7), for a second
   * reading of words the page reading was unsure of. Optional: without it pages keep their first reading.
   */
  recognizeLine?(image: Uint8Array, options?: { signal?: AbortSignal }): Promise<OcrImageResult>;
  /**
   * How far the page in the image is turned, from Tesseract's orientation and script detection:
   * `degrees` (0, 90, 180, 270) is the clockwise turn that makes it upright. Optional: an engine
   * without it leaves pages as they come.
   */
  detectOrientation?(image: Uint8Array, options?: { signal?: AbortSignal }): Promise<OrientationResult | undefined>;
  close(): Promise<void>;
}

export interface OrientationResult {
  readonly degrees: 0 | 90 | 180 | 270;
  /** Tesseract's orientation confidence (not a probability; ≥ 2 is where it starts being right). */
  readonly confidence: number;
}

export interface TesseractOcrOptions {
  /**
   * Folder holding `eng.traineddata.gz`. Defaults to the `@tesseract.js-data/eng` package's
   * `4.0.0_best_int` model (LSTM, integer-quantised "best"), which measured both more accurate and
   * no slower than the package's 4.0.0 model on our corpus. Never a URL: nothing is downloaded.
   */
  readonly langPath?: string;
  /** Tesseract language codes joined with "+" (default "eng"); each needs `<code>.traineddata.gz` in langPath. */
  readonly languages?: string;
  /** Tesseract page segmentation mode; 11 (sparse text) keeps form fields and table cells apart. */
  readonly pageSegMode?: string;
}

type TesseractWorker = Awaited<ReturnType<typeof import('tesseract.js')['createWorker']>>;

/**
 * English with French, German, Portuguese and Danish: each adds the marked Latin letters of its
 * language (é è ç ô, ä ö ü ß, ã õ á í, ø æ å) that English lacks, so "Hélène Lefèvre" is not read
 * as "Helene Lefevre" nor "Hauptstraße" as "HauptstraBe". Tesseract tries the other languages only
 * on words the first reads poorly. Measured on the tuned half of the corpus scans (in-process
 * CPU per page): eng+fra 0.59–0.63 s; all five 0.70–0.79 s (+19–25 %), +2 facts in ~125 on each
 * of two seeds; eng+fra+por alone added nothing. Each model is 1.3–1.8 MB gzipped.
 */
const DEFAULT_LANGUAGES = 'eng+fra+deu+por+dan';

const languagesDirs = new Map<string, Promise<string>>();

/**
 * tesseract.js reads every language from one folder, and each language's model ships in its own
 * npm package: a per-process temporary folder of symbolic links joins them (nothing is copied or
 * downloaded). Caching the promise is the same lazy, load-once pattern as a module import. The
 * orientation model (`osd`) is always linked beside the languages.
 */
function packagedLanguagesDir(languages: string): Promise<string> {
  let dir = languagesDirs.get(languages);
  if (!dir) {
    dir = (async () => {
      const { mkdtemp, symlink } = await import('node:fs/promises');
      const { tmpdir } = await import('node:os');
      const folder = await mkdtemp(join(tmpdir(), 'dossier-tesseract-'));
      const require = createRequire(import.meta.url);
      for (const code of new Set([...languages.split('+'), 'osd'])) {
        const root = dirname(require.resolve(`@tesseract.js-data/${code}/package.json`));
        await symlink(join(root, '4.0.0_best_int', `${code}.traineddata.gz`), join(folder, `${code}.traineddata.gz`));
      }
      return folder;
    })();
    languagesDirs.set(languages, dir);
  }
  return dir;
}

export function defaultTesseractLangPath(): string {
  const root = dirname(createRequire(import.meta.url).resolve('@tesseract.js-data/eng/package.json'));
  return join(root, '4.0.0_best_int');
}

/**
 * OCR with tesseract.js (Tesseract compiled to WASM, running in a worker thread). The worker is
 * created on first use and reused; recognitions are queued one at a time, because one Tesseract
 * worker uses one core and the machine has two to share with the rest of the service.
 */
export function createTesseractOcr(options: TesseractOcrOptions = {}): OcrEngine {
  const languages = options.languages ?? (options.langPath ? 'eng' : DEFAULT_LANGUAGES);
  const pageSegMode = options.pageSegMode ?? '11';
  // Two engines, each started on first use: the LSTM reader, and the legacy engine that orientation
  // detection needs (its model, osd, has no LSTM part). Most pages never start the second.
  const workers: { read?: Promise<TesseractWorker>; osd?: Promise<TesseractWorker> } = {};
  let queue: Promise<unknown> = Promise.resolve();

  const start = async (kind: 'read' | 'osd'): Promise<TesseractWorker> => {
    const { createWorker, OEM } = await import('tesseract.js');
    const langPath = options.langPath ?? (await packagedLanguagesDir(languages));
    const common = {
      langPath,
      // 'none' neither reads nor writes a cache: the model is read from the package every start.
      cacheMethod: 'none',
      gzip: true,
      logger: () => {},
      errorHandler: () => {},
    };
    const created = kind === 'read'
      ? await createWorker(languages, OEM.LSTM_ONLY, common)
      : await createWorker('osd', OEM.TESSERACT_ONLY, { ...common, legacyCore: true, legacyLang: true } as typeof common);
    await created.setParameters({ tessedit_pageseg_mode: pageSegMode as never, user_defined_dpi: '150' });
    return created;
  };

  const stop = async (kind: 'read' | 'osd'): Promise<void> => {
    const current = workers[kind];
    workers[kind] = undefined;
    if (current) await current.then((w) => w.terminate()).catch(() => {});
  };

  const run = async <T>(kind: 'read' | 'osd', signal: AbortSignal | undefined, job: (w: TesseractWorker) => Promise<T>): Promise<T> => {
    if (signal?.aborted) throw abortError();
    workers[kind] ??= start(kind);
    const current = workers[kind];
    const onAbort = () => void stop(kind);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await job(await current);
      if (signal?.aborted) throw abortError();
      return result;
    } catch (error) {
      // A worker that failed mid-job may be in any state: start over next time.
      if (workers[kind] === current) await stop(kind);
      throw signal?.aborted ? abortError() : error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  };

  const enqueue = <T>(job: () => Promise<T>): Promise<T> => {
    const next = queue.then(job);
    queue = next.catch(() => {});
    return next;
  };

  return {
    recognize(image, opts = {}) {
      return enqueue(() => run('read', opts.signal, async (w) => {
        const result = await w.recognize(Buffer.from(image), {}, { text: false, blocks: true });
        return { words: wordsOf(result.data.blocks ?? []) };
      }));
    },
    recognizeLine(image, opts = {}) {
      return enqueue(() => run('read', opts.signal, async (w) => {
        await w.setParameters({ tessedit_pageseg_mode: '7' as never });
        try {
          const result = await w.recognize(Buffer.from(image), {}, { text: false, blocks: true });
          return { words: wordsOf(result.data.blocks ?? []) };
        } finally {
          await w.setParameters({ tessedit_pageseg_mode: pageSegMode as never });
        }
      }));
    },
    detectOrientation(image, opts = {}) {
      return enqueue(() => run('osd', opts.signal, async (w) => {
        const { data } = await w.detect(Buffer.from(image));
        const degrees = data.orientation_degrees;
        if (degrees !== 0 && degrees !== 90 && degrees !== 180 && degrees !== 270) return undefined;
        return { degrees, confidence: data.orientation_confidence ?? 0 };
      }));
    },
    async close() {
      await queue;
      await Promise.all([stop('read'), stop('osd')]);
    },
  };
}

function abortError(): Error {
  const error = new Error('OCR was aborted');
  error.name = 'AbortError';
  return error;
}

type TesseractBlock = NonNullable<Awaited<ReturnType<TesseractWorker['recognize']>>['data']['blocks']>[number];

/**
 * Words with their line's band, from Tesseract's layout: the band is placed on the line's
 * baseline (interpolated at the word, so a skewed scan keeps each word on its own line) and is the
 * line's row height tall, descenders below the baseline.
 */
function wordsOf(blocks: readonly TesseractBlock[]): OcrWord[] {
  const words: OcrWord[] = [];
  for (const block of blocks) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        const { baseline, rowAttributes: row, bbox } = line;
        const usable = row && baseline && row.rowHeight > 0 && Number.isFinite(baseline.y0) && Number.isFinite(baseline.y1);
        for (const word of line.words) {
          const text = word.text.trim();
          if (text === '') continue;
          let top = word.bbox.y0;
          let bottom = word.bbox.y1;
          if (usable) {
            const mid = (word.bbox.x0 + word.bbox.x1) / 2;
            const span = baseline.x1 - baseline.x0;
            const y = span > 0 ? baseline.y0 + ((baseline.y1 - baseline.y0) * (mid - baseline.x0)) / span : (baseline.y0 + baseline.y1) / 2;
            top = y - (row.rowHeight - row.descenders);
            bottom = y + row.descenders;
          } else if (bbox) {
            top = bbox.y0;
            bottom = bbox.y1;
          }
          words.push({ text, confidence: word.confidence, x0: word.bbox.x0, x1: word.bbox.x1, top, bottom });
        }
      }
    }
  }
  return words;
}

/** Words whose confidence is below this are noise (speckles, rules read as "|" or "—"). */
const MIN_WORD_CONFIDENCE = 20;

/**
 * Words with letters read below this confidence get a second, enlarged reading. Measured on the
 * tuned half of the corpus scans: words read right mostly sit at 95–96; marked letters read
 * without or with another mark at 81–95 ("Jorgen" 81, "HauptstraRe" 84, "Benoit" 87, "Koln" 91,
 * "Kôhler" 92; "Orla" 95 is out of reach). Tuned half (311 facts) with a threshold of 90 / 93 / 95:
 * 0.950 / 0.953 / 0.959, no new miss at 95.
 */
export const UNSURE_WORD_CONFIDENCE = 95;
/**
 * How much the unsure words are enlarged for the second reading: at the corpus scans' ~144 dpi a
 * letter is 10–15 px tall (median blob height), and Tesseract tells marks apart best at 20–30 px
 * x-height. Tuned half (311 facts): 2.5× 0.950, 3× 0.953 (but cut "Lefèvre" to "Lef"), 3.5× 0.953.
 */
export const REREAD_SCALE = 3.5;

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
async function rereadUnsureWords(engine: OcrEngine, image: Uint8Array, words: OcrWord[], signal: AbortSignal): Promise<OcrWord[]> {
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
  const { loadImage, createCanvas } = await import('@napi-rs/canvas');
  const page = await loadImage(Buffer.from(image));
  const replaced = new Map<number, OcrWord[]>();
  for (const run of runs) {
    if (signal.aborted) break;
    const first = words[run[0]!]!;
    const last = words[run[run.length - 1]!]!;
    const top = Math.min(...run.map((i) => words[i]!.top));
    const bottom = Math.max(...run.map((i) => words[i]!.bottom));
    const height = bottom - top;
    // The margin stops halfway to the neighbouring words, so none of their ink is read with the run.
    const neighbours = words.filter((w, i) => !run.includes(i) && (w.top + w.bottom) / 2 > top && (w.top + w.bottom) / 2 < bottom);
    const leftLimit = Math.max(0, ...neighbours.filter((w) => w.x1 <= first.x0).map((w) => (w.x1 + first.x0) / 2));
    const rightLimit = Math.min(page.width, ...neighbours.filter((w) => w.x0 >= last.x1).map((w) => (w.x0 + last.x1) / 2));
    const x0 = Math.max(leftLimit, first.x0 - 0.5 * height);
    const x1 = Math.min(rightLimit, last.x1 + 0.5 * height);
    const y0 = Math.max(0, top - 0.2 * height);
    const y1 = Math.min(page.height, bottom + 0.2 * height);
    if (x1 - x0 < 2 || y1 - y0 < 2) continue;
    const canvas = createCanvas(Math.round((x1 - x0) * REREAD_SCALE), Math.round((y1 - y0) * REREAD_SCALE));
    const context = canvas.getContext('2d');
    context.imageSmoothingQuality = 'high';
    context.drawImage(page, x0, y0, x1 - x0, y1 - y0, 0, 0, canvas.width, canvas.height);
    const second = (await engine.recognizeLine!(new Uint8Array(await canvas.encode('png')), { signal })).words
      .filter((w) => w.text.trim() !== '')
      .map((w) => ({ ...w, x0: x0 + w.x0 / REREAD_SCALE, x1: x0 + w.x1 / REREAD_SCALE, top, bottom }));
    if (second.length === 0) continue;
    if (second.length === run.length) {
      run.forEach((i, k) => {
        const better = second[k]!;
        if (better.confidence > words[i]!.confidence && sameNonLetters(better.text, words[i]!.text)) replaced.set(i, [{ ...better, x0: Math.max(better.x0, x0), x1: Math.min(better.x1, x1) }]);
      });
    } else {
      const mean = (list: readonly OcrWord[]) => list.reduce((sum, w) => sum + w.confidence, 0) / list.length;
      const before = run.map((i) => words[i]!);
      if (mean(second) > mean(before) && sameNonLetters(second.map((w) => w.text).join(''), before.map((w) => w.text).join(''))) {
        replaced.set(run[0]!, second);
        for (const i of run.slice(1)) replaced.set(i, []);
      }
    }
  }
  if (replaced.size === 0) return words;
  return words.flatMap((w, i) => replaced.get(i) ?? [w]);
}

/**
 * The second reading may change letters only: the crop's edge reads as stray marks ("Rd," came
 * back "Rd,-"), and digits and punctuation are what the value repairs downstream check.
 */
function sameNonLetters(a: string, b: string): boolean {
  const skeleton = (text: string) => text.normalize('NFD').replace(/[\p{L}\p{M}\s]+/gu, '');
  return skeleton(a) === skeleton(b);
}

/**
 * Where the OCRed image sits on its page: the page's size in its own unit, and how many image
 * pixels make one unit (2 for a PDF page rendered at scale 2, below 1 for a downscaled photo).
 */
export interface OcrFrame {
  readonly size: PageSize;
  readonly pixelsPerUnit: number;
  /** Degrees (clockwise) the image was turned back by before OCR to undo skew; boxes are turned forward again. */
  readonly deskewedBy?: number;
  /** Quarter turns (clockwise) the image was given before OCR to set a sideways or upside-down page upright. */
  readonly quarterTurns?: 0 | 1 | 2 | 3;
}

/** Runs OCR on one image and builds its canonical page text from the word boxes. */
export async function ocrImageToPage(
  engine: OcrEngine,
  image: Uint8Array,
  pageIndex: number,
  signal: AbortSignal,
  frame: OcrFrame,
): Promise<DocumentResult<PageText>> {
  let result: OcrImageResult;
  try {
    result = await engine.recognize(image, { signal });
  } catch (error) {
    if (signal.aborted) return documentFailure('extraction_timeout', 'OCR was stopped by the extraction deadline');
    const message = error instanceof Error ? error.message : String(error);
    // Tesseract reports undecodable images through the same channel as engine failures.
    if (/attempting to read image|pixRead|cannot be read/i.test(message)) return documentFailure('corrupt_document', `image could not be decoded: ${message.slice(0, 200)}`);
    return documentFailure('ocr_failed', `OCR engine failed: ${message.slice(0, 200)}`);
  }
  let words = result.words.filter((w) => w.confidence >= MIN_WORD_CONFIDENCE || /[\p{L}\p{N}]{2,}/u.test(w.text));
  if (engine.recognizeLine) {
    try {
      words = await rereadUnsureWords(engine, image, words, signal);
    } catch {
      if (signal.aborted) return documentFailure('extraction_timeout', 'OCR was stopped by the extraction deadline');
      // The second reading only ever improves on the first: keep the first when it fails.
    }
  }
  const fragments: PositionedFragment[] = words.map((w) => ({ text: w.text, x0: w.x0, x1: w.x1, top: w.top, bottom: w.bottom }));
  const placed: PositionedFragment[] = [];
  const text = layoutFragments(fragments, OCR_COLUMN_GAP, placed);
  const confidence = words.length === 0 ? 0 : words.reduce((sum, w) => sum + w.confidence, 0) / words.length;
  return documentOk({ page_index: pageIndex, text, method: 'ocr', ocr_confidence: Math.round(confidence * 10) / 10, size: frame.size, origin: boxOrigin(text, placed, frame.pixelsPerUnit, toUploadedPage(frame)) });
}

/**
 * Maps points of the OCRed image (in page units) back onto the page as uploaded: first undo the
 * deskew (a rotation about the turned image's centre), then the quarter turns.
 */
function toUploadedPage(frame: OcrFrame): ((x: number, y: number) => readonly [number, number]) | undefined {
  const turns = frame.quarterTurns ?? 0;
  if (!frame.deskewedBy && turns === 0) return undefined;
  const { width: W, height: H } = frame.size;
  const turnedWidth = turns % 2 === 0 ? W : H;
  const turnedHeight = turns % 2 === 0 ? H : W;
  const t = ((frame.deskewedBy ?? 0) * Math.PI) / 180;
  const cx = turnedWidth / 2;
  const cy = turnedHeight / 2;
  const cos = Math.cos(t);
  const sin = Math.sin(t);
  return (x, y) => {
    const u = cx + (x - cx) * cos - (y - cy) * sin;
    const v = cy + (x - cx) * sin + (y - cy) * cos;
    // The image was turned clockwise by `turns` quarters: page (px, py) went to
    // 1: (H − py, px), 2: (W − px, H − py), 3: (py, W − px).
    switch (turns) {
      case 1: return [v, H - u];
      case 2: return [W - u, H - v];
      case 3: return [W - v, u];
      default: return [u, v];
    }
  };
}
