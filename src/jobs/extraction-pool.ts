import { fork, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import {
  DEFAULT_EXTRACTION_LIMITS,
  documentFailure,
  type ExtractionPool,
  type ExtractedPages,
  type ExtractionLimits,
  type ExtractPagesInput,
  type DocumentResult,
  type RenderedPageImage,
  type RenderPagesInput,
} from '../domain/documents/index.ts';
import type { ExtractionReply, ExtractionRequest } from './extraction-child.ts';
import { PARENT_PID_VARIABLE } from './orphan-watch.ts';

/**
 * Document extraction in child processes, so no document can stall or exhaust the process that
 * answers HTTP. Parsing (pdfjs, mammoth) and OCR are CPU-bound and run native code that allocates
 * outside the JavaScript heap (canvas bitmaps, decoded images, WASM): a worker thread's
 * `resourceLimits` would bound only the heap, and a native allocation failure there takes the
 * whole server down. A child process is bounded as a whole and killed for real:
 * - at the deadline: the child answers `extraction_timeout` itself at `limits.timeoutMs`; if it
 *   has not answered `killGraceMs` later (stuck in a synchronous call), it is SIGKILLed;
 * - over the memory cap: its resident set is read from /proc every `memoryPollMs` and the child
 *   is SIGKILLed above `maxRssBytes`; its heap is also capped with --max-old-space-size, which
 *   makes V8 abort the child rather than grow;
 * - a crash (a V8 abort, a native fault) ends only the child;
 * - a child outlives no parent: a watch thread kills it once its parent is gone (orphan-watch.ts).
 * A killed or crashed extraction rejects with {@link ExtractionAborted}: the job fails and is
 * retried a bounded number of times (case-jobs.ts), then the document is `extraction_aborted`.
 *
 * Children are reused between documents: a fresh child answers its first document after
 * 0.3–0.45 s and loads the OCR model in 2–5 s on first use, while a document handed to a warm
 * child costs 0.2–0.4 ms of IPC (median, bench/extraction.ts). At most `size` children run at
 * once, and a child is replaced after `maxJobsPerChild` documents so a slow leak in a parser
 * library cannot accumulate.
 */
export interface ExtractionPoolOptions {
  /** Child processes at most (each uses one core while it works). */
  readonly size?: number;
  readonly limits?: Partial<ExtractionLimits>;
  /** How long after `limits.timeoutMs` a child that has not answered is killed. */
  readonly killGraceMs?: number;
  /** Resident memory of one child (heap, native buffers, OCR engine) above which it is killed. */
  readonly maxRssBytes?: number;
  /** V8 old-space cap of a child, in MB. */
  readonly maxHeapMb?: number;
  readonly memoryPollMs?: number;
  readonly maxJobsPerChild?: number;
  /** The child's entry module; tests substitute misbehaving children. */
  readonly childModule?: URL;
}

export type { ExtractionPool };

export class ExtractionAborted extends Error {
  override name = 'ExtractionAborted';
  readonly reason: 'deadline' | 'memory' | 'crashed' | 'closed';
  constructor(reason: ExtractionAborted['reason'], message: string) {
    super(message);
    this.reason = reason;
  }
}

/** Measured here: a child that has run pdfjs and the OCR engine holds ~260 MB; a process running
 * mammoth on a 50,000-cell table reached 670 MB; a 40 MP PDF image decodes to 160 MB of RGBA. */
const DEFAULT_MAX_RSS_BYTES = 1536 * 1024 * 1024;
const DEFAULT_MAX_HEAP_MB = 1024;
/**
 * V8 sizes the young generation from the old-generation cap, so --max-old-space-size=1024 left
 * the child a young generation a fraction of what a process without the cap gets, and pdfjs —
 * which allocates a document's font programs and operator lists afresh each time — spent twice
 * the garbage collection a process of its own did (child profile, 800 text PDFs: 0.94 s against
 * 0.45 s in process). With 16 MB semi-spaces the child's CPU per one-page text PDF went
 * 7.1 → 5.4 ms (medians of 8 passes over 200 corpus PDFs, load average ~9; issue 28 §5); 32 MB
 * did no better. At most 3 × 16 MB more resident, well inside the 1.5 GB cap.
 */
const SEMI_SPACE_MB = 16;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

interface Job {
  readonly request: DistributiveOmit<ExtractionRequest, 'id'>;
  readonly signal: AbortSignal | undefined;
  /** An extraction's result value, or the pages a render request drew. */
  resolve(result: DocumentResult<ExtractedPages> | RenderedPageImage[]): void;
  reject(error: Error): void;
}

interface Child {
  readonly process: ChildProcess;
  jobs: number;
  busy: boolean;
  /** Ends the job the child is running, killing the child when `abort` is given. */
  finish?: (outcome: { reply: ExtractionReply } | { abort: ExtractionAborted }) => void;
}

export function createExtractionPool(options: ExtractionPoolOptions = {}): ExtractionPool {
  const size = Math.max(1, options.size ?? 2);
  const limits = { ...DEFAULT_EXTRACTION_LIMITS, ...options.limits };
  const killGraceMs = options.killGraceMs ?? 5_000;
  const maxRssBytes = options.maxRssBytes ?? DEFAULT_MAX_RSS_BYTES;
  const maxHeapMb = options.maxHeapMb ?? DEFAULT_MAX_HEAP_MB;
  const memoryPollMs = options.memoryPollMs ?? 200;
  const maxJobsPerChild = options.maxJobsPerChild ?? 200;
  const childModule = options.childModule ?? new URL('./extraction-child.ts', import.meta.url);
  const children = new Set<Child>();
  const waiting: Job[] = [];
  let nextId = 1;
  let closed = false;

  const spawnChild = (): Child => {
    const proc = fork(childModule, [], {
      execArgv: [`--max-old-space-size=${maxHeapMb}`, `--max-semi-space-size=${SEMI_SPACE_MB}`, '--disable-warning=ExperimentalWarning'],
      serialization: 'advanced',
      env: { ...process.env, [PARENT_PID_VARIABLE]: String(process.pid) },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const child: Child = { process: proc, jobs: 0, busy: false };
    proc.on('exit', (code, signal) => {
      children.delete(child);
      child.finish?.({ abort: new ExtractionAborted('crashed', `extraction process exited (${signal ?? `code ${code}`})`) });
      dispatch();
    });
    proc.on('error', () => proc.kill('SIGKILL'));
    proc.on('message', (reply: ExtractionReply) => child.finish?.({ reply }));
    children.add(child);
    return child;
  };

  const run = (child: Child, job: Job): void => {
    child.busy = true;
    child.jobs++;
    const id = nextId++;
    let settled = false;
    const deadline = setTimeout(
      () => finish({ abort: new ExtractionAborted('deadline', `extraction did not answer within ${limits.timeoutMs + killGraceMs} ms`) }),
      limits.timeoutMs + killGraceMs,
    );
    const memory = setInterval(() => {
      void residentBytes(child.process.pid).then((rss) => {
        if (rss !== undefined && rss > maxRssBytes) {
          finish({ abort: new ExtractionAborted('memory', `extraction used ${Math.round(rss / 1048576)} MB; the cap is ${Math.round(maxRssBytes / 1048576)} MB`) });
        }
      });
    }, memoryPollMs);
    const onAbort = () => finish({ abort: new ExtractionAborted('deadline', 'extraction was cancelled') });
    job.signal?.addEventListener('abort', onAbort, { once: true });

    function finish(outcome: { reply: ExtractionReply } | { abort: ExtractionAborted }): void {
      if ('reply' in outcome && outcome.reply.id !== id) return;
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearInterval(memory);
      job.signal?.removeEventListener('abort', onAbort);
      child.finish = undefined;
      child.busy = false;
      if ('abort' in outcome) {
        children.delete(child);
        child.process.kill('SIGKILL');
        // A caller's cancellation is the extractor's documented `extraction_timeout` value.
        if (job.signal?.aborted) job.resolve(documentFailure('extraction_timeout', 'extraction was cancelled'));
        else job.reject(outcome.abort);
      } else if ('error' in outcome.reply) {
        job.reject(new Error(`extraction failed: ${outcome.reply.error}`));
      } else {
        job.resolve('rendered' in outcome.reply ? outcome.reply.rendered : outcome.reply.result);
      }
      if (child.jobs >= maxJobsPerChild && children.delete(child)) child.process.disconnect();
      dispatch();
    }
    child.finish = finish;
    if (job.signal?.aborted) return onAbort();
    child.process.send({ id, ...job.request } as ExtractionRequest);
  };

  const dispatch = (): void => {
    while (waiting.length > 0 && !closed) {
      let child = [...children].find((c) => !c.busy && c.process.connected);
      if (!child && children.size < size) child = spawnChild();
      if (!child) return;
      run(child, waiting.shift()!);
    }
  };

  return {
    extractPages(input: ExtractPagesInput): Promise<DocumentResult<ExtractedPages>> {
      if (closed) return Promise.reject(new ExtractionAborted('closed', 'the extraction pool is closed'));
      return new Promise((resolve, reject) => {
        waiting.push({
          request: { bytes: input.bytes, limits, ...(input.mimeType ? { mimeType: input.mimeType } : {}), ...(input.ocrLanguages ? { ocrLanguages: input.ocrLanguages } : {}) },
          signal: input.signal,
          resolve: resolve as Job['resolve'],
          reject,
        });
        dispatch();
      });
    },
    /**
     * Draws PDF pages in a child, queued like an extraction and bound by the same deadline and
     * memory cap (a page is drawn the way OCR draws it). Rejects like an extraction when killed.
     */
    renderPages(input: RenderPagesInput): Promise<RenderedPageImage[]> {
      if (closed) return Promise.reject(new ExtractionAborted('closed', 'the extraction pool is closed'));
      if (input.pageIndexes.length === 0) return Promise.resolve([]);
      return new Promise((resolve, reject) => {
        const { bytes, pageIndexes, scale, maxRenderPixels } = input;
        waiting.push({ request: { kind: 'render', bytes, pageIndexes, scale, maxRenderPixels }, signal: undefined, resolve: resolve as Job['resolve'], reject });
        dispatch();
      });
    },
    get pids() {
      return [...children].map((c) => c.process.pid!).filter(Boolean);
    },
    async close() {
      closed = true;
      for (const job of waiting.splice(0)) job.reject(new ExtractionAborted('closed', 'the extraction pool is closed'));
      const exits = [...children].map((c) => new Promise<void>((resolve) => {
        if (c.process.exitCode !== null || c.process.signalCode !== null) return resolve();
        c.process.once('exit', () => resolve());
        c.finish?.({ abort: new ExtractionAborted('closed', 'the extraction pool is closed') });
        c.process.kill('SIGKILL');
      }));
      await Promise.all(exits);
      children.clear();
    },
  };
}

/** Resident set size of a process from /proc (Linux); undefined elsewhere or once it has exited. */
async function residentBytes(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}
