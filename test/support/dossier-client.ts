import { Dossier, DossierError, type DossierOptions, type FetchLike } from '@dossier/client';
import type { FastifyInstance } from 'fastify';
import type { TestApp, TestWorkspace } from './harness.ts';

/** The address the client is given in tests over inject; nothing listens there. */
export const INJECT_BASE_URL = 'http://dossier.test';

/**
 * A WHATWG fetch over Fastify's `inject`: the client talks to the whole service (routing, hooks,
 * serialisation) without a port. The request body is passed as bytes, as a socket would carry it.
 */
export function injectFetch(app: FastifyInstance): FetchLike {
  return async (url, init) => {
    const target = new URL(url);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const res = await app.inject({
      method: (init.method ?? 'GET') as 'GET',
      url: `${target.pathname}${target.search}`,
      headers,
      ...(init.body !== undefined && init.body !== null ? { payload: String(init.body) } : {}),
    });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(name, String(v));
    }
    const empty = res.statusCode === 204 || res.statusCode === 304;
    return new Response(empty ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, headers: responseHeaders });
  };
}

/**
 * The client as an integrator uses it, for a test workspace, over inject. Retries are off unless
 * asked for: an API test wants to see the first answer.
 */
export function dossierFor(t: TestApp, ws: Pick<TestWorkspace, 'key'> | string, options: Partial<DossierOptions> = {}): Dossier {
  return new Dossier({
    apiKey: typeof ws === 'string' ? ws : ws.key,
    baseUrl: INJECT_BASE_URL,
    fetch: injectFetch(t.app),
    maxRetries: 0,
    ...options,
  });
}

/** The DossierError a call fails with; fails the test when the call succeeds or fails otherwise. */
export async function dossierError(call: Promise<unknown>): Promise<DossierError> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if ('value' in outcome) throw new Error(`expected a DossierError, but the call succeeded: ${JSON.stringify(outcome.value)}`);
  if (!(outcome.error instanceof DossierError)) throw outcome.error;
  return outcome.error;
}

/** The HTTP status a call ended with: its answer's, or its DossierError's. */
export function statusOf(call: Promise<{ lastResponse: { status: number } }>): Promise<number> {
  return call.then(
    (result) => result.lastResponse.status,
    (error: unknown) => {
      if (error instanceof DossierError) return error.status;
      throw error;
    },
  );
}
