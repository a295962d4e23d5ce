import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { OcrEngine, OcrImageResult, OcrWord } from './engine.ts';
import { DEFAULT_OCR_LANGUAGES, INSTALLED_OCR_LANGUAGES } from './languages.ts';

export interface TesseractOcrOptions {
  /**
   * Folder holding `eng.traineddata.gz`. Defaults to the `@tesseract.js-data/eng` package's
   * `4.0.0_best_int` model (LSTM, integer-quantised "best"), which measured both more accurate and
   * no slower than the package's 4.0.0 model on our corpus. Never a URL: nothing is downloaded.
   */
  readonly langPath?: string;
  /**
   * Tesseract language codes joined with "+", for pages read without languages of their own (see
   * OcrEngine.recognize). Default: the fallback of languages.ts, or "eng" with a langPath. Each
   * needs `<code>.traineddata.gz` in langPath.
   */
  readonly languages?: string;
  /** Tesseract page segmentation mode; 11 (sparse text) keeps form fields and table cells apart. */
  readonly pageSegMode?: string;
  /**
   * Languages that read words again for their marks, one at a time (see OcrEngine.markLanguages).
   * Default: every installed language with marked letters (languages.ts); with a langPath, the
   * page's languages other than English.
   */
  readonly markLanguages?: readonly string[];
}

type TesseractWorker = Awaited<ReturnType<typeof import('tesseract.js')['createWorker']>>;

/**
 * Page readers kept started, each for one set of languages; the one used least recently is stopped
 * for a third. Measured starting one (in-process CPU, resident memory): eng+fra 0.34 s and 65 MB,
 * all five fallback languages 0.76 s and 137 MB. Two keep a worker that alternates between a
 * case type's language set and the fallback from starting a reader for every document.
 */
const MAX_PAGE_READERS = 2;

/**
 * Workers per page reader that read a page's parts at once: two, for the two cores of the machines
 * this service is sized for: the bench's dense 300 dpi page reads in ~1.2 s instead of ~1.7 s.
 * The second lane starts with its reader, and stops with it.
 */
export const PAGE_LANES = 2;

/** The worker of a page reader that reads part `lane` (0-based) of a page. */
function laneOf(kind: `read:${string}`, lane: number): `read:${string}` {
  return lane === 0 ? kind : `${kind}#${lane + 1}`;
}

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
 * worker uses one core and the machine has two to share with the rest of the service. The one
 * exception is a page read in parts (`recognizeParts`, page-parts.ts): its parts are one queued
 * job, read at once on PAGE_LANES workers of the same languages, so a page waits for one core's
 * worth of reading, not two.
 */
export function createTesseractOcr(options: TesseractOcrOptions = {}): OcrEngine {
  const defaultLanguages = options.languages ?? (options.langPath ? 'eng' : DEFAULT_OCR_LANGUAGES.page.join('+'));
  const pageSegMode = options.pageSegMode ?? '11';
  // Engines, each started on first use: an LSTM page reader per set of languages, and the legacy
  // engine that orientation detection needs (its model, osd, has no LSTM part); most pages never
  // start the second. Beside them, one single-language line reader per marked language, each
  // started the first time a page has a word whose marks are read again (see readMarksAgain).
  type WorkerKind = `read:${string}` | 'osd' | `line:${string}`;
  const workers: Partial<Record<WorkerKind, Promise<TesseractWorker>>> = {};
  /** Page readers, the one used last at the end. */
  const readers: Array<`read:${string}`> = [];
  const markLanguages = options.markLanguages ?? (options.langPath ? defaultLanguages.split('+').filter((code) => code !== 'eng') : DEFAULT_OCR_LANGUAGES.marks);
  const available = new Set(options.langPath ? [...defaultLanguages.split('+'), ...markLanguages] : INSTALLED_OCR_LANGUAGES);
  let queue: Promise<unknown> = Promise.resolve();

  const start = async (kind: WorkerKind): Promise<TesseractWorker> => {
    const { createWorker, OEM } = await import('tesseract.js');
    const langPath = options.langPath ?? (await packagedLanguagesDir([...available]));
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
    const created = kind === 'osd'
      ? await createWorker('osd', OEM.TESSERACT_ONLY, { ...common, legacyCore: true, legacyLang: true } as typeof common)
      : await createWorker(kind.slice('read:'.length).split('#')[0]!, OEM.LSTM_ONLY, common);
    await created.setParameters({ tessedit_pageseg_mode: pageSegMode as never, user_defined_dpi: '150' });
    return created;
  };

  const stop = async (kind: WorkerKind): Promise<void> => {
    const current = workers[kind];
    workers[kind] = undefined;
    if (current) await current.then((w) => w.terminate()).catch(() => {});
  };

  /** The page reader for `languages`, the least recently used other one stopped when too many are started. */
  const readerFor = async (languages: readonly string[] | undefined): Promise<`read:${string}`> => {
    const codes = languages && languages.length > 0 ? languages : defaultLanguages.split('+');
    const missing = codes.find((code) => !available.has(code));
    if (missing) throw new Error(`language ${missing} is not installed`);
    const kind = `read:${codes.join('+')}` as const;
    const at = readers.indexOf(kind);
    if (at >= 0) readers.splice(at, 1);
    readers.push(kind);
    // The reader's other lanes start beside it, on the other core, so the first page read in
    // parts does not wait ~1 s for its second worker. A failed start is reported to the part
    // that uses the lane (run awaits it), not here.
    for (let lane = 1; lane < PAGE_LANES; lane++) {
      const other = laneOf(kind, lane);
      if (!workers[other]) {
        workers[other] = start(other);
        workers[other].catch(() => {});
      }
    }
    while (readers.length > MAX_PAGE_READERS) {
      const evicted = readers.shift()!;
      for (let lane = 0; lane < PAGE_LANES; lane++) await stop(laneOf(evicted, lane));
    }
    return kind;
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
      return enqueue(async () => run(await readerFor(opts.languages), opts.signal, async (w) => {
        const result = await w.recognize(Buffer.from(image), {}, { text: false, blocks: true });
        return { words: wordsOf(result.data.blocks ?? []) };
      }));
    },
    recognizeParts(images, opts = {}) {
      if (images.length > PAGE_LANES) return Promise.reject(new Error(`at most ${PAGE_LANES} parts are read at once`));
      return enqueue(async () => {
        const kind = await readerFor(opts.languages);
        // Settled, not all: the job holds its place in the queue until every lane is done, so no
        // later job is handed to a worker still reading.
        const parts = await Promise.allSettled(images.map((image, lane) => run(laneOf(kind, lane), opts.signal, async (w) => {
          const result = await w.recognize(Buffer.from(image), {}, { text: false, blocks: true });
          return { words: wordsOf(result.data.blocks ?? []) };
        })));
        const failed = parts.find((p) => p.status === 'rejected');
        if (failed) throw failed.reason;
        return parts.map((p) => (p as PromiseFulfilledResult<OcrImageResult>).value);
      });
    },
    markLanguages,
    recognizeLine(image, opts = {}) {
      const language = opts.language;
      if (language !== undefined) {
        if (!available.has(language)) return Promise.reject(new Error(`language ${language} is not installed`));
        return enqueue(() => run(`line:${language}`, opts.signal, async (w) => {
          const result = await w.recognize(Buffer.from(image), {}, { text: false, blocks: true });
          return { words: wordsOf(result.data.blocks ?? []) };
        }));
      }
      return enqueue(async () => run(await readerFor(opts.languages), opts.signal, async (w) => {
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
      readers.length = 0;
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
