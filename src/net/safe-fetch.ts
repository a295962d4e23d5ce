import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
// undici loads with the first request a client sends, not when the client is made: an idle API
// server makes one and may never send (issue 16, idle RSS: 1.2 MB of source in 109 modules).
import type { Agent, buildConnector, Dispatcher } from 'undici';
import { bareHost, checkOutboundUrl, isPublicAddress, systemLookup, type Lookup, type OutboundPolicy } from './address-policy.ts';

/**
 * The one outbound HTTP client (style guide: the SSRF-safe port). Webhook attempts use it now;
 * document and OpenAPI fetching will use it too, with a larger `maxResponseBytes`.
 */
export interface OutboundHttp {
  fetch(request: OutboundRequest): Promise<FetchResult>;
  /** Waits for requests in flight, then closes every pooled connection. */
  close(): Promise<void>;
}

export interface OutboundRequest {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** One deadline for connecting, the response headers and the body read. Default: the client's. */
  timeoutMs?: number;
  /** How much of the response body is read before the rest is dropped. Default 64 KiB. */
  maxResponseBytes?: number;
}

export type FetchFailureReason =
  /** Not a URL, or a scheme the policy refuses. */
  | 'invalid_url'
  /** A non-public destination: refused before a packet was sent to it. */
  | 'blocked_address'
  /** The deadline passed before the answer was read. */
  | 'timeout'
  /** DNS, TCP, TLS or protocol failure: no HTTP answer. */
  | 'connection_failed'
  /** A 3xx answer. Redirects are never followed: the new target was not checked. */
  | 'redirect'
  /** Any other non-2xx answer. */
  | 'http_status';

interface Answer {
  status: number;
  headers: Record<string, string>;
  /** What was read of the body: at most `maxResponseBytes`. */
  body: Buffer;
  /** The first 4 KiB of the body as text, for logs and the delivery log. */
  bodyExcerpt: string;
  /** The body was longer than what was read. */
  truncated: boolean;
}

export type FetchResult =
  | ({ ok: true; durationMs: number } & Answer)
  | ({ ok: false; reason: 'redirect' | 'http_status'; message: string; durationMs: number } & Answer)
  | { ok: false; reason: 'invalid_url' | 'blocked_address' | 'timeout' | 'connection_failed'; message: string; status?: undefined; durationMs: number };

export interface SafeHttpClientOptions {
  policy: OutboundPolicy;
  timeoutMs: number;
  /** DNS, replaceable in tests (a name that resolves to loopback checks the connection-time guard). */
  lookup?: Lookup;
  /** Concurrent connections per origin; unlimited by default (callers bound their own concurrency). */
  connectionsPerOrigin?: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
export const EXCERPT_BYTES = 4 * 1024;

class BlockedAddressError extends Error {
  readonly code = 'ERR_DOSSIER_BLOCKED_ADDRESS';
  constructor(address: string) {
    super(`refused to connect to non-public address ${address}`);
  }
}

/** A `net.connect` lookup that refuses a name when any of its addresses is not public. */
function guardedLookup(lookup: Lookup) {
  return (hostname: string, options: LookupOptions, callback: (...args: unknown[]) => void) => {
    lookup(hostname).then(
      (found) => {
        const addresses = found.filter((a) => !options.family || a.family === options.family);
        const blocked = found.find((a) => !isPublicAddress(a.address));
        if (blocked) return callback(new BlockedAddressError(blocked.address));
        if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }));
        if (options.all) return callback(null, addresses satisfies LookupAddress[]);
        return callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: unknown) => callback(err),
    );
  };
}

/**
 * The address is judged when the socket is made, for every new connection: literal hosts here
 * (a lookup hook never sees them), names through the guarded lookup (so a name rebound to a
 * private address after the upfront check is refused before any packet goes to it), and the
 * connected peer address once more as a last line.
 */
function guardedConnector(
  buildConnector: typeof import('undici').buildConnector,
  policy: OutboundPolicy,
  timeoutMs: number,
  lookup: Lookup,
): buildConnector.connector {
  const options = { timeout: timeoutMs, ...(policy.allowPrivateNetwork ? {} : { lookup: guardedLookup(lookup) }) };
  const connect = buildConnector(options as buildConnector.BuildOptions);
  if (policy.allowPrivateNetwork) return connect;
  return (options, callback) => {
    const host = bareHost(options.hostname);
    if (isIP(host) !== 0 && !isPublicAddress(host)) return callback(new BlockedAddressError(host), null);
    connect(options, (err, socket) => {
      if (err) return callback(err, null);
      const peer = (socket as Socket).remoteAddress;
      if (peer && !isPublicAddress(peer)) {
        socket!.destroy();
        return callback(new BlockedAddressError(peer), null);
      }
      return callback(null, socket!);
    });
  };
}

/** The refusal behind an error, however undici or happy-eyeballs wrapped it. */
function blockedCause(err: unknown, depth = 0): Error | undefined {
  const e = err as { code?: string; cause?: unknown; errors?: unknown[] } | undefined;
  if (!e || depth > 5) return undefined;
  if (e.code === 'ERR_DOSSIER_BLOCKED_ADDRESS') return e as Error;
  for (const inner of Array.isArray(e.errors) ? e.errors : []) {
    const found = blockedCause(inner, depth + 1);
    if (found) return found;
  }
  return blockedCause(e.cause, depth + 1);
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; errors?: { message?: string }[] };
  const message = e.message || e.errors?.map((x) => x.message).join('; ') || 'connection failed';
  return e.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}

function flattenHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

async function readCapped(body: Dispatcher.ResponseData['body'], max: number): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    const room = max - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      size = max;
      truncated = true;
      break;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  if (truncated) body.destroy();
  return { body: Buffer.concat(chunks, size), truncated };
}

/** Stateless decoding (no `stream` option), so one decoder serves every answer. */
const utf8 = new TextDecoder();

/** Checked URLs per client (the policy is the client's): a webhook endpoint's URL is parsed once, not per attempt. */
const CHECKED_URLS_LIMIT = 1_000;

export function createSafeHttpClient(options: SafeHttpClientOptions): OutboundHttp {
  const { policy, timeoutMs: defaultTimeoutMs } = options;
  const checkedUrls = new Map<string, ReturnType<typeof checkOutboundUrl>>();
  let agent: Agent | undefined;
  let agentLoading: Promise<Agent> | undefined;
  const loadAgent = () =>
    (agentLoading ??= import('undici').then(({ Agent, buildConnector }) => {
      agent = new Agent({
        connect: guardedConnector(buildConnector, policy, defaultTimeoutMs, options.lookup ?? systemLookup),
        connections: options.connectionsPerOrigin ?? null,
        // Our own deadline governs; these only stop undici's 300 s defaults from outliving it.
        headersTimeout: defaultTimeoutMs,
        bodyTimeout: defaultTimeoutMs,
      });
      return agent;
    }));

  async function fetch(request: OutboundRequest): Promise<FetchResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let checked = checkedUrls.get(request.url);
    if (!checked) {
      checked = checkOutboundUrl(request.url, policy);
      if (checkedUrls.size >= CHECKED_URLS_LIMIT) checkedUrls.clear();
      checkedUrls.set(request.url, checked);
    }
    if (!checked.ok) return { ok: false, reason: checked.reason, message: `URL ${checked.message}`, durationMs: 0 };
    const { url } = checked;

    const timeoutMs = request.timeoutMs ?? defaultTimeoutMs;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
    try {
      const response = await (agent ?? (await loadAgent())).request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: request.method,
        headers: request.headers ?? {},
        body: request.body ?? null,
        signal: deadline.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const { body, truncated } = await readCapped(response.body, request.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
      const answer: Answer = {
        status: response.statusCode,
        headers: flattenHeaders(response.headers),
        body,
        bodyExcerpt: utf8.decode(body.subarray(0, EXCERPT_BYTES)),
        truncated,
      };
      const status = response.statusCode;
      if (status >= 200 && status < 300) return { ok: true, durationMs: elapsed(), ...answer };
      if (status >= 300 && status < 400) {
        return { ok: false, reason: 'redirect', message: `HTTP ${status}: redirects are not followed`, durationMs: elapsed(), ...answer };
      }
      return { ok: false, reason: 'http_status', message: `HTTP ${status}`, durationMs: elapsed(), ...answer };
    } catch (err) {
      if (deadline.signal.aborted) {
        return { ok: false, reason: 'timeout', message: `timed out: no complete answer within ${timeoutMs} ms`, durationMs: elapsed() };
      }
      const code = (err as { code?: string }).code;
      if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
        return { ok: false, reason: 'timeout', message: `timed out: ${describe(err)}`, durationMs: elapsed() };
      }
      const blocked = blockedCause(err);
      if (blocked) return { ok: false, reason: 'blocked_address', message: blocked.message, durationMs: elapsed() };
      return { ok: false, reason: 'connection_failed', message: describe(err), durationMs: elapsed() };
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    fetch,
    // A client that never sent has nothing to close; one still loading closes once it has loaded.
    close: async () => {
      if (agentLoading) await (await agentLoading).close();
    },
  };
}
