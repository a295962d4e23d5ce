import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { layoutFragments, OCR_COLUMN_GAP, type PositionedFragment } from './canonical-text.ts';
import type { OcrEngine, OcrImageResult, OcrWord } from './ocr-engine.ts';
import { readAgain } from './second-readings.ts';
import { boxOrigin } from './origin.ts';
import { documentFailure, documentOk, type DocumentResult, type PageSize, type PageText } from './types.ts';

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
  /**
   * Languages that read words again for their marks, one at a time (see OcrEngine.markLanguages).
   * Default: the page's languages other than English, and Irish.
   */
  readonly markLanguages?: readonly string[];
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
/**
 * Irish reads only the words read again for their marks, not pages: its fadas ("Ní", "Seán",
 * "Órla") are read by no other model, and Irish names are common on Irish documents. A word is read
 * in Irish in ~15–30 ms; a page in all six languages would be ~20 % slower for every page.
 */
const MARK_ONLY_LANGUAGES = ['gle'];

const languagesDirs = new Map<string, Promise<string>>();

/**
 * tesseract.js reads every language from one folder, and each language's model ships in its own
 * npm package: a per-process temporary folder of symbolic links joins them (nothing is copied or
 * downloaded). Caching the promise is the same lazy, load-once pattern as a module import. The
 * orientation model (`osd`) is always linked beside the languages.
 */
function packagedLanguagesDir(codes: readonly string[]): Promise<string> {
  const languages = [...new Set([...codes, 'osd'])].sort().join('+');
  let dir = languagesDirs.get(languages);
  if (!dir) {
    dir = (async () => {
      const { mkdtemp, symlink } = await import('node:fs/promises');
      const { tmpdir } = await import('node:os');
      const folder = await mkdtemp(join(tmpdir(), 'dossier-tesseract-'));
      const require = createRequire(import.meta.url);
      for (const code of languages.split('+')) {
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
  // Beside them, one single-language line reader per marked language, each started the first time
  // a page has a word whose marks are read again (see readMarksAgain).
  type WorkerKind = 'read' | 'osd' | `line:${string}`;
  const workers: Partial<Record<WorkerKind, Promise<TesseractWorker>>> = {};
  const markLanguages = options.markLanguages ?? [...languages.split('+').filter((code) => code !== 'eng'), ...(options.langPath ? [] : MARK_ONLY_LANGUAGES)];
  let queue: Promise<unknown> = Promise.resolve();

  const start = async (kind: WorkerKind): Promise<TesseractWorker> => {
    const { createWorker, OEM } = await import('tesseract.js');
    const langPath = options.langPath ?? (await packagedLanguagesDir([...languages.split('+'), ...markLanguages]));
    const common = {
      langPath,
      // 'none' neither reads nor writes a cache: the model is read from the package every start.
      cacheMethod: 'none',
      gzip: true,
      logger: () => {},
      errorHandler: () => {},
    };
    if (kind.startsWith('line:')) {
      const created = await createWorker(kind.slice('line:'.length), OEM.LSTM_ONLY, common);
      await created.setParameters({ tessedit_pageseg_mode: '7' as never, user_defined_dpi: '150' });
      return created;
    }
    const created = kind === 'read'
      ? await createWorker(languages, OEM.LSTM_ONLY, common)
      : await createWorker('osd', OEM.TESSERACT_ONLY, { ...common, legacyCore: true, legacyLang: true } as typeof common);
    await created.setParameters({ tessedit_pageseg_mode: pageSegMode as never, user_defined_dpi: '150' });
    return created;
  };

  const stop = async (kind: WorkerKind): Promise<void> => {
    const current = workers[kind];
    workers[kind] = undefined;
    if (current) await current.then((w) => w.terminate()).catch(() => {});
  };

  const run = async <T>(kind: WorkerKind, signal: AbortSignal | undefined, job: (w: TesseractWorker) => Promise<T>): Promise<T> => {
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
    markLanguages,
    recognizeLine(image, opts = {}) {
      const language = opts.language;
      if (language !== undefined) {
        if (!markLanguages.includes(language)) return Promise.reject(new Error(`language ${language} is not loaded`));
        return enqueue(() => run(`line:${language}`, opts.signal, async (w) => {
          const result = await w.recognize(Buffer.from(image), {}, { text: false, blocks: true });
          return { words: wordsOf(result.data.blocks ?? []) };
        }));
      }
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
      await Promise.all((Object.keys(workers) as WorkerKind[]).map((kind) => stop(kind)));
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
          const letters = (word.symbols ?? []).map((symbol) => ({ text: symbol.text, ...symbol.bbox }));
          const oneEach = letters.length > 0 && letters.length === [...text].length && letters.every((l, k) => l.text === [...text][k]);
          words.push({ text, confidence: word.confidence, x0: word.bbox.x0, x1: word.bbox.x1, top, bottom, ...(oneEach ? { letters } : {}) });
        }
      }
    }
  }
  return words;
}

/** Words whose confidence is below this are noise (speckles, rules read as "|" or "—"). */
const MIN_WORD_CONFIDENCE = 20;

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
      words = await readAgain(engine, image, words, signal);
    } catch {
      if (signal.aborted) return documentFailure('extraction_timeout', 'OCR was stopped by the extraction deadline');
      // The second readings only ever improve on the first: keep the first when they fail.
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
