import { systemClock, Transport, type ClientClock, type FetchLike } from './http.ts';
import { Operations, type CallInput, type OperationId, type ResponseBody } from './operations.ts';
import { Cases } from './resources/cases.ts';
import { Connectors } from './resources/connectors.ts';
import { CaseTypes } from './resources/case-types.ts';
import { Notifications } from './resources/notifications.ts';
import { Process } from './resources/process.ts';
import { Sessions } from './resources/sessions.ts';
import { Webhooks } from './resources/webhooks.ts';
import type { WithResponse } from './response.ts';
import { DEFAULT_RETRY_SETTINGS } from './retry.ts';

export interface DossierOptions {
  /** A secret key: `sk_test_…` or `sk_live_…`. Keep it on your server. */
  apiKey: string;
  /** The workspace API base address, e.g. `https://dossier.example.com` (without `/api/v1`). */
  baseUrl: string;
  /** Retries after a retryable failure (spec §7.3). Default 2; 0 turns retrying off. */
  maxRetries?: number;
  /** Per attempt, including reading the body. Default 30 000 ms. */
  timeoutMs?: number;
  /** The longest 429 wait the client sits out before retrying; a longer one throws `RateLimitError` at once. Default 60 000 ms. */
  maxRetryWaitMs?: number;
  /** Waits between failed attempts grow from this (default 500 ms) … */
  initialRetryDelayMs?: number;
  /** … up to this (default 8 000 ms), each with jitter. */
  maxRetryDelayMs?: number;
  /** A fetch implementation; default the runtime's global `fetch`. */
  fetch?: FetchLike;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** The clock retries wait on; replace it in tests. */
  clock?: ClientClock;
  /** Jitter's randomness, in [0, 1); replace it in tests. */
  random?: () => number;
}

/**
 * The Dossier API client. Resources follow the API paths: `sessions`, `process`, `cases`
 * (with `facts`, `documents`), `webhooks` (with `deliveries`), `notifications`, `connectors` and `caseTypes`.
 */
export class Dossier {
  readonly sessions: Sessions;
  readonly process: Process;
  readonly cases: Cases;
  readonly webhooks: Webhooks;
  readonly notifications: Notifications;
  readonly connectors: Connectors;
  readonly caseTypes: CaseTypes;
  readonly #ops: Operations;

  constructor(options: DossierOptions) {
    if (!options.apiKey) throw new TypeError('new Dossier({ apiKey }) needs an API key (sk_test_… or sk_live_…)');
    if (!options.baseUrl) throw new TypeError('new Dossier({ baseUrl }) needs the API base address');
    const fetchImpl = options.fetch ?? (globalThis.fetch ? (url: string, init: RequestInit) => globalThis.fetch(url, init) : undefined);
    if (!fetchImpl) throw new TypeError('No global fetch in this runtime: pass options.fetch');
    const transport = new Transport({
      apiKey: options.apiKey,
      baseUrl: options.baseUrl,
      timeoutMs: options.timeoutMs ?? 30_000,
      retry: {
        maxRetries: options.maxRetries ?? DEFAULT_RETRY_SETTINGS.maxRetries,
        initialDelayMs: options.initialRetryDelayMs ?? DEFAULT_RETRY_SETTINGS.initialDelayMs,
        maxDelayMs: options.maxRetryDelayMs ?? DEFAULT_RETRY_SETTINGS.maxDelayMs,
        maxRetryWaitMs: options.maxRetryWaitMs ?? DEFAULT_RETRY_SETTINGS.maxRetryWaitMs,
      },
      fetch: fetchImpl,
      headers: options.headers ?? {},
      clock: options.clock ?? systemClock,
      random: options.random ?? Math.random,
    });
    this.#ops = new Operations(transport);
    this.sessions = new Sessions(this.#ops);
    this.process = new Process(this.#ops);
    this.cases = new Cases(this.#ops);
    this.webhooks = new Webhooks(this.#ops);
    this.notifications = new Notifications(this.#ops);
    this.connectors = new Connectors(this.#ops);
    this.caseTypes = new CaseTypes(this.#ops);
  }

  /**
   * Any operation by its operationId, typed from the OpenAPI document: for an operation newer
   * than the resource methods. POSTs are retried after an unknown outcome only with `idempotencyKey`.
   */
  request<Id extends OperationId>(operationId: Id, input: CallInput<Id>): Promise<WithResponse<ResponseBody<Id>>> {
    return this.#ops.call(operationId, input);
  }
}
