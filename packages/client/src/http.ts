import { DossierConnectionError, DossierTimeoutError, errorFromResponse, InternalError, type DossierError } from './errors.ts';
import { attachResponse, readRateLimit, type ResponseInfo, type WithResponse } from './response.ts';
import { rateLimitWait, retryDelay, type RetrySettings } from './retry.ts';

/** Any WHATWG fetch: the runtime's own, undici's, or an adapter (Fastify's `inject` in tests). */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Time as the client sees it; replace it in tests so retries neither wait nor depend on the wall clock. */
export interface ClientClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: ClientClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** Per call: override the client's defaults for one request. */
export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
  headers?: Record<string, string>;
}

export interface TransportSettings {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  retry: RetrySettings;
  fetch: FetchLike;
  headers: Record<string, string>;
  clock: ClientClock;
  random: () => number;
}

export interface HttpRequest {
  method: string;
  /** The path with its parameters filled in, starting with `/api/v1`. */
  path: string;
  query?: Record<string, string | number | boolean | null | undefined>;
  body?: unknown;
  /** Safe to repeat after a failure whose effect is unknown (network, timeout, 5xx). */
  idempotent: boolean;
  /** Sent as `Idempotency-Key`, the same on every retry. */
  idempotencyKey?: string;
  options?: RequestOptions;
}

const USER_AGENT = 'dossier-client-js/0.1.0';

class AttemptTimeout extends Error {}

type Attempt =
  | { kind: 'response'; response: Response; text: string }
  | { kind: 'network'; error: unknown; timedOut: boolean };

/** Sends requests with authentication, timeouts and the retry rules of spec §7.3. */
export class Transport {
  readonly #settings: TransportSettings;

  constructor(settings: TransportSettings) {
    this.#settings = settings;
  }

  async send<T>(request: HttpRequest): Promise<WithResponse<T>> {
    const settings = this.#settings;
    const options = request.options ?? {};
    const retry = { ...settings.retry, maxRetries: options.maxRetries ?? settings.retry.maxRetries };
    const url = this.#url(request);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': USER_AGENT,
      ...settings.headers,
      ...options.headers,
      authorization: `Bearer ${settings.apiKey}`,
    };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;
    const init: RequestInit = { method: request.method, headers, ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}) };

    for (let retries = 0; ; retries++) {
      const attempt = await this.#attempt(url, init, options.signal, options.timeoutMs ?? settings.timeoutMs);
      if (attempt.kind === 'network') {
        const wait = retryDelay({ kind: 'network' }, { retry: retries, idempotent: request.idempotent, now: settings.clock.now(), random: settings.random, settings: retry });
        if (wait !== null) {
          await settings.clock.sleep(wait, options.signal);
          continue;
        }
        const what = `${request.method} ${request.path}`;
        const tries = retries === 0 ? '' : ` after ${retries + 1} attempts`;
        if (attempt.timedOut) throw new DossierTimeoutError(`${what}: no answer within ${options.timeoutMs ?? settings.timeoutMs} ms${tries}`, { cause: attempt.error, retries });
        throw new DossierConnectionError(`${what}: the connection failed${tries}: ${describe(attempt.error)}`, { cause: attempt.error, retries });
      }

      const { response, text } = attempt;
      const body = parseJson(text);
      const rateLimit = readRateLimit(response.headers);
      if (response.ok) {
        if (body === undefined && text.trim() !== '') {
          throw new InternalError({
            status: response.status,
            type: 'internal_error',
            code: 'internal_error',
            message: `${request.method} ${request.path} answered ${response.status} with a body that is not JSON`,
            requestId: response.headers.get('x-request-id'),
            headers: response.headers,
            rateLimit,
            retries,
          });
        }
        const info: ResponseInfo = {
          status: response.status,
          requestId: response.headers.get('x-request-id'),
          idempotentReplay: response.headers.get('idempotent-replayed') === 'true',
          idempotencyKey: request.idempotencyKey ?? null,
          rateLimit,
          retries,
          headers: response.headers,
        };
        return attachResponse(body as T, info);
      }

      const error: DossierError = errorFromResponse({
        status: response.status,
        headers: response.headers,
        body,
        rateLimit,
        retryAfterMs: response.status === 429 ? rateLimitWait(response.headers, settings.clock.now()) : null,
        retries,
      });
      const wait = retryDelay(
        { kind: 'response', status: response.status, headers: response.headers, code: error.code },
        { retry: retries, idempotent: request.idempotent, now: settings.clock.now(), random: settings.random, settings: retry },
      );
      if (wait === null) throw error;
      await settings.clock.sleep(wait, options.signal);
    }
  }

  #url(request: HttpRequest): string {
    // Appended, not resolved: a base address behind a path prefix (https://example.com/dossier) keeps it.
    const url = new URL(`${this.#settings.baseUrl.replace(/\/+$/, '')}${request.path}`);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  /** One attempt, body included: a connection dropped while the body streams is a network failure too. */
  async #attempt(url: string, init: RequestInit, signal: AbortSignal | undefined, timeoutMs: number): Promise<Attempt> {
    signal?.throwIfAborted();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new AttemptTimeout()), timeoutMs);
    const onAbort = () => controller.abort(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await this.#settings.fetch(url, { ...init, signal: controller.signal });
      const text = await response.text();
      return { kind: 'response', response, text };
    } catch (error) {
      // The caller's own abort is a decision, not a failure: it is never retried.
      if (signal?.aborted) throw signal.reason;
      return { kind: 'network', error, timedOut: controller.signal.reason instanceof AttemptTimeout };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${(error.cause as Error & { code?: string }).code ?? error.cause.message}` : '';
  return `${error.message}${cause}`;
}
