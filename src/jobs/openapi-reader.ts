import { Worker } from 'node:worker_threads';
import type { OpenApiDigest, OpenApiReader, OpenApiSource } from '../domain/connectors/openapi-digest.ts';
import { fail, type Result } from '../domain/errors.ts';

/**
 * OpenAPI documents are read in worker threads, so no document can stall the event loop that
 * answers HTTP (issue 23): the checks in openapi-refs.ts refuse the documents known to explode
 * before anything is followed, and this is what holds when a check misses one.
 * - Deadline: a worker still reading `timeoutMs` after it was ready (parser loaded) is terminated
 *   (V8 stops even a synchronous loop) and the import answers `invalid_openapi_spec` saying so. A
 *   new thread slow to start on a busy machine does not eat into it (three times as long is allowed).
 * - Memory: each worker's heap is capped with `resourceLimits`; past it V8 ends the worker, not
 *   the process. Unlike extraction (extraction-pool.ts), the parser and validator are plain
 *   JavaScript whose memory is heap, which the cap bounds: a thread suffices.
 * - At most `concurrency` documents are read at once; the others wait their turn.
 * A worker stays for `idleMs` after a read and is reused: starting one and loading the parser
 * took 2.4–3.2 s on the shared 2-core test machine, a warm one answers in milliseconds. An idle
 * worker does not keep the process alive.
 */
export interface OpenApiReaderOptions {
  readonly timeoutMs?: number;
  readonly maxHeapMb?: number;
  readonly concurrency?: number;
  readonly idleMs?: number;
  /** The worker's entry module; tests substitute one that hangs. */
  readonly workerModule?: URL;
}

export const OPENAPI_READ_TIMEOUT_MS = 10_000;
export const OPENAPI_READ_MAX_HEAP_MB = 256;

interface Reader {
  readonly worker: Worker;
  /** The worker has loaded the parser and waits for documents. */
  ready: boolean;
  onReady?: () => void;
  idleTimer?: NodeJS.Timeout;
  /** Settles the read in progress. */
  finish?: (result: Result<OpenApiDigest>) => void;
}

type Reply = { id: number; result: Result<OpenApiDigest> };

export function createOpenApiReader(options: OpenApiReaderOptions = {}): OpenApiReader {
  const timeoutMs = options.timeoutMs ?? OPENAPI_READ_TIMEOUT_MS;
  const maxHeapMb = options.maxHeapMb ?? OPENAPI_READ_MAX_HEAP_MB;
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const idleMs = options.idleMs ?? 60_000;
  const workerModule = options.workerModule ?? new URL('./openapi-worker.ts', import.meta.url);
  const idle: Reader[] = [];
  const waiting: (() => void)[] = [];
  let running = 0;
  let nextId = 1;

  const start = (): Reader => {
    const worker = new Worker(workerModule, { resourceLimits: { maxOldGenerationSizeMb: maxHeapMb, maxYoungGenerationSizeMb: 32 }, stdout: false, stderr: false });
    const reader: Reader = { worker, ready: false };
    const onReady = (message: { ready?: true }) => {
      if (message.ready !== true) return;
      reader.ready = true;
      worker.off('message', onReady);
      reader.onReady?.();
    };
    worker.on('message', onReady);
    const gone = (result: Result<OpenApiDigest>) => {
      const at = idle.indexOf(reader);
      if (at >= 0) idle.splice(at, 1);
      reader.finish?.(result);
    };
    worker.on('error', (err: Error & { code?: string }) =>
      gone(
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? fail('invalid_openapi_spec', `The OpenAPI document could not be read within ${maxHeapMb} MB of memory: it is too large or too intricate to import.`)
          : fail('invalid_openapi_spec', `The OpenAPI document could not be read: ${err.message.split('\n')[0]!.slice(0, 300)}.`),
      ),
    );
    worker.on('exit', (code) => gone(fail('invalid_openapi_spec', `The OpenAPI document could not be read: the reader stopped (exit code ${code}).`)));
    return reader;
  };

  const readWith = (reader: Reader, source: OpenApiSource): Promise<Result<OpenApiDigest>> =>
    new Promise((resolve) => {
      const id = nextId++;
      let deadline: NodeJS.Timeout | undefined;
      // The deadline bounds the document's work: a thread slow to start and load the parser on a busy machine does not count against it.
      const startDeadline = () => {
        clearTimeout(deadline);
        deadline = setTimeout(() => {
          finish(fail('invalid_openapi_spec', `The OpenAPI document could not be read within ${timeoutMs / 1000} s: it is too large or too intricate to import.`));
          void reader.worker.terminate();
        }, timeoutMs);
      };
      if (reader.ready) startDeadline();
      else {
        reader.onReady = startDeadline;
        // A thread that never starts must not hold the import either.
        deadline = setTimeout(() => {
          finish(fail('invalid_openapi_spec', `The OpenAPI document could not be read: its reader did not start within ${(timeoutMs * 3) / 1000} s.`));
          void reader.worker.terminate();
        }, timeoutMs * 3);
      }
      const release = (result: Result<OpenApiDigest>) => {
        finish(result);
        idle.push(reader);
        reader.worker.unref();
        reader.idleTimer = setTimeout(() => void reader.worker.terminate(), idleMs).unref();
      };
      const onMessage = (reply: Reply) => {
        if (reply.id === id) release(reply.result);
      };
      function finish(result: Result<OpenApiDigest>): void {
        clearTimeout(deadline);
        reader.onReady = undefined;
        reader.worker.off('message', onMessage);
        reader.finish = undefined;
        resolve(result);
      }
      reader.finish = finish;
      reader.worker.on('message', onMessage);
      reader.worker.ref();
      try {
        reader.worker.postMessage({ id, source });
      } catch (err) {
        // Copying to the thread recurses: a value nested hundreds of thousands deep (1 MiB of `[`) exhausts the stack here.
        release(fail('invalid_openapi_spec', `The OpenAPI document could not be read: ${err instanceof RangeError ? 'it nests too deeply' : (err as Error).message}.`));
      }
    });

  return {
    async read(source) {
      // A finished read hands its slot to the next waiting one directly.
      if (running >= concurrency) await new Promise<void>((resume) => waiting.push(resume));
      else running++;
      try {
        const reader = idle.pop() ?? start();
        clearTimeout(reader.idleTimer);
        return await readWith(reader, source);
      } finally {
        const next = waiting.shift();
        if (next) next();
        else running--;
      }
    },
  };
}
