import { performance } from 'node:perf_hooks';

/** What the local receiver made of one forwarded delivery. */
export interface ForwardResult {
  statusCode: number | null;
  durationMs: number;
  /** Why there was no 2xx: `connection refused`, `timed out after 10000 ms`, `the local receiver answered 500`. */
  error: string | null;
  responseExcerpt: string | null;
}

const EXCERPT_CHARS = 4096;

/** Node's network error codes, in the words a developer looks for. */
const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  UND_ERR_SOCKET: 'connection closed',
};

function describeFailure(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string; errors?: { code?: string }[] } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `timed out after ${timeoutMs} ms`;
  const code = e.cause?.code ?? e.cause?.errors?.[0]?.code;
  if (code && NETWORK_ERRORS[code]) return NETWORK_ERRORS[code];
  return e.cause?.message ?? e.message ?? 'request failed';
}

/**
 * Sends one delivery to the local receiver as a URL endpoint would get it: the same headers, both
 * signatures included, and the body byte for byte. Made on the developer's machine, so any
 * address will do (localhost is the point). Redirects are not followed, as the worker follows none.
 */
export async function forwardDelivery(input: { url: string; headers: Record<string, string>; body: string; timeoutMs: number }): Promise<ForwardResult> {
  const started = performance.now();
  try {
    const response = await fetch(input.url, {
      method: 'POST',
      headers: input.headers,
      body: input.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(input.timeoutMs),
    });
    const text = await response.text().catch(() => '');
    const durationMs = Math.round(performance.now() - started);
    const ok = response.status >= 200 && response.status < 300;
    return {
      statusCode: response.status,
      durationMs,
      error: ok ? null : `the local receiver answered ${response.status}`,
      responseExcerpt: text.slice(0, EXCERPT_CHARS),
    };
  } catch (err) {
    return { statusCode: null, durationMs: Math.round(performance.now() - started), error: describeFailure(err, input.timeoutMs), responseExcerpt: null };
  }
}
