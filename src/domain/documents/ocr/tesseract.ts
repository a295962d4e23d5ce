import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { OcrEngine, OcrImageResult, OcrWord } from './engine.ts';
import { DEFAULT_OCR_LANGUAGES, INSTALLED_OCR_LANGUAGES } from './languages.ts';
import { createLanes } from './lanes.ts';

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
 * Lanes OCR jobs run in at once: two, for the two cores of the machines this service is sized
 * for. A page read in parts takes both (the bench's dense 300 dpi page reads in ~1.2 s instead of
 * ~1.7 s); a page's second readings go two at a time. Each lane has a page reader of its own for
 * the languages in use (readers keep a segmentation mode between jobs); the single-language line
 * readers are shared, one job at a time each.
 */
export const PAGE_LANES = 2;

/** A worker: `read:<languages>` (a page reader; lanes after the first add "#<lane + 1>"), `line:<language>` or `osd`. */
type WorkerKind = `read:${string}` | `line:${string}` | 'osd';

/** The page reader that lane `lane` (0-based) uses. */
function laneOf(kind: `read:${string}`, lane: number): `read:${string}` {
  return lane === 0 ? kind : `${kind}#${lane + 1}`;
}

/** The kind a lane's worker is of: "read:eng+fra#2" is a reader of eng+fra. */
function baseOf(kind: WorkerKind): string {
  return kind.replace(/#\d+$/, '');
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
 * OCR with tesseract.js (Tesseract compiled to WASM, running in worker threads). Workers are
 * created on first use and reused. Recognitions run in PAGE_LANES lanes (lanes.ts): two at a
 * time, one a core, each lane with workers of its own, since a worker runs one job at a time and
 * keeps its settings between jobs. A page read in parts (`recognizeParts`, page-parts.ts) takes
 * both lanes, so a page waits for one core's worth of reading, not two; the second readings of a
 * page's words go two at a time (`readsAtOnce`).
 */
/** The Tesseract engine, and which workers it holds (for the tests that bound its memory). */
export interface TesseractOcr extends OcrEngine {
  /** The workers started and not stopped: "read:fra+eng", "read:fra+eng#2", "line:deu", "osd". */
  workersHeld(): string[];
}

export function createTesseractOcr(options: TesseractOcrOptions = {}): TesseractOcr {
  const defaultLanguages = options.languages ?? (options.langPath ? 'eng' : DEFAULT_OCR_LANGUAGES.page.join('+'));
  const pageSegMode = options.pageSegMode ?? '11';
  // Engines, each started on first use: an LSTM page reader per set of languages, and the legacy
  // engine that orientation detection needs (its model, osd, has no LSTM part); most pages never
  // start the second. Beside them, one single-language line reader per marked language, each
  // started the first time a page has a word whose marks are read again (see readMarksAgain).
  // Page readers are per lane: lane 0's named as above, lane k's ending in "#k+1".
  const workers: Partial<Record<WorkerKind, Promise<TesseractWorker>>> = {};
  /** Jobs running on or waiting for each worker: a page reader is not stopped under them. */
  const busy = new Map<WorkerKind, number>();
  /** Each worker's last job: a worker runs one job at a time (a shared line reader, two lanes). */
  const turns = new Map<WorkerKind, Promise<void>>();
  /** Page readers (their lane-0 names), the one used last at the end. */
  const readers: Array<`read:${string}`> = [];
  const markLanguages = options.markLanguages ?? (options.langPath ? defaultLanguages.split('+').filter((code) => code !== 'eng') : DEFAULT_OCR_LANGUAGES.marks);
  const available = new Set(options.langPath ? [...defaultLanguages.split('+'), ...markLanguages] : INSTALLED_OCR_LANGUAGES);
  const lanes = createLanes(PAGE_LANES);

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
    const base = baseOf(kind);
    if (base.startsWith('line:')) {
      const created = await createWorker(base.slice('line:'.length), OEM.LSTM_ONLY, common);
      await created.setParameters({ tessedit_pageseg_mode: '7' as never, user_defined_dpi: '150' });
      return created;
    }
    const created = base === 'osd'
      ? await createWorker('osd', OEM.TESSERACT_ONLY, { ...common, legacyCore: true, legacyLang: true } as typeof common)
      : await createWorker(base.slice('read:'.length), OEM.LSTM_ONLY, common);
    await created.setParameters({ tessedit_pageseg_mode: pageSegMode as never, user_defined_dpi: '150' });
    return created;
  };

  const stop = async (kind: WorkerKind): Promise<void> => {
    const current = workers[kind];
    workers[kind] = undefined;
    if (current) await current.then((w) => w.terminate()).catch(() => {});
  };

  /**
   * The page reader for `languages`, the least recently used other one stopped when too many are
   * started (unless a job is running on it: it is stopped by a later call).
   */
  const readerFor = async (languages: readonly string[] | undefined): Promise<`read:${string}`> => {
    const codes = languages && languages.length > 0 ? languages : defaultLanguages.split('+');
    const missing = codes.find((code) => !available.has(code));
    if (missing) throw new Error(`language ${missing} is not installed`);
    const kind = `read:${codes.join('+')}` as const;
    const at = readers.indexOf(kind);
    if (at >= 0) readers.splice(at, 1);
    readers.push(kind);
    // The reader's other lanes start beside it, on the other core, so the first page read in
    // parts does not wait ~1 s for its second worker. A failed start is reported to the job
    // that uses the lane (run awaits it), not here.
    for (let lane = 1; lane < PAGE_LANES; lane++) {
      const other = laneOf(kind, lane);
      if (!workers[other]) {
        workers[other] = start(other);
        workers[other].catch(() => {});
      }
    }
    const idle = (reader: `read:${string}`) => Array.from({ length: PAGE_LANES }, (_, lane) => busy.get(laneOf(reader, lane)) ?? 0).every((n) => n === 0);
    // Only the reader in use keeps its other lanes: each is a whole reader's memory (~135 MB with
    // the fallback's five languages), and a child reading cases in several languages would
    // otherwise hold every set of languages twice.
    for (const other of readers) {
      if (other === kind) continue;
      for (let lane = 1; lane < PAGE_LANES; lane++) if (!busy.get(laneOf(other, lane))) await stop(laneOf(other, lane));
    }
    while (readers.length > MAX_PAGE_READERS) {
      const k = readers.findIndex((reader) => reader !== kind && idle(reader));
      if (k < 0) break;
      const [evicted] = readers.splice(k, 1);
      for (let lane = 0; lane < PAGE_LANES; lane++) await stop(laneOf(evicted!, lane));
    }
    return kind;
  };

  const run = async <T>(kind: WorkerKind, signal: AbortSignal | undefined, job: (w: TesseractWorker) => Promise<T>): Promise<T> => {
    if (signal?.aborted) throw abortError();
    busy.set(kind, (busy.get(kind) ?? 0) + 1);
    const before = turns.get(kind) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    turns.set(kind, before.then(() => mine));
    try {
      await before;
      return await runNow(kind, signal, job);
    } finally {
      done();
      busy.set(kind, busy.get(kind)! - 1);
    }
  };

  /** A job on a worker nothing else is using: started if it is not, stopped if the job fails. */
  const runNow = async <T>(kind: WorkerKind, signal: AbortSignal | undefined, job: (w: TesseractWorker) => Promise<T>): Promise<T> => {
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

  const read = async (w: TesseractWorker, image: Uint8Array): Promise<OcrImageResult> => {
    const result = await w.recognize(Buffer.from(image), {}, { text: false, blocks: true });
    return { words: wordsOf(result.data.blocks ?? []) };
  };

  return {
    readsAtOnce: PAGE_LANES,
    workersHeld: () => (Object.keys(workers) as WorkerKind[]).filter((kind) => workers[kind] !== undefined).sort(),
    recognize(image, opts = {}) {
      return lanes.run(1, async ([lane]) => run(laneOf(await readerFor(opts.languages), lane!), opts.signal, (w) => read(w, image)));
    },
    recognizeParts(images, opts = {}) {
      if (images.length > PAGE_LANES) return Promise.reject(new Error(`at most ${PAGE_LANES} parts are read at once`));
      return lanes.run(images.length, async (held) => {
        const kind = await readerFor(opts.languages);
        // Settled, not all: the job holds its lanes until every part is done, so no later job is
        // handed a worker still reading.
        const parts = await Promise.allSettled(images.map((image, k) => run(laneOf(kind, held[k]!), opts.signal, (w) => read(w, image))));
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
        return lanes.run(1, () => run(`line:${language}`, opts.signal, (w) => read(w, image)));
      }
      return lanes.run(1, async ([lane]) => run(laneOf(await readerFor(opts.languages), lane!), opts.signal, async (w) => {
        await w.setParameters({ tessedit_pageseg_mode: '7' as never });
        try {
          return await read(w, image);
        } finally {
          await w.setParameters({ tessedit_pageseg_mode: pageSegMode as never });
        }
      }));
    },
    detectOrientation(image, opts = {}) {
      return lanes.run(1, () => run('osd', opts.signal, async (w) => {
        const { data } = await w.detect(Buffer.from(image));
        const degrees = data.orientation_degrees;
        if (degrees !== 0 && degrees !== 90 && degrees !== 180 && degrees !== 270) return undefined;
        return { degrees, confidence: data.orientation_confidence ?? 0 };
      }));
    },
    async close() {
      await lanes.idle();
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
