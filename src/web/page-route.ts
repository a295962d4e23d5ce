import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { z } from 'zod';
import { AppError } from '../domain/errors.ts';
import type { WebAuth } from '../http/plugins/route-auth.ts';

/** What a page handler gets: its parsed params, query and body, beside the raw request for headers and cookies. */
export interface PageInput<D, P, Q, B> {
  request: FastifyRequest;
  reply: FastifyReply;
  params: P;
  query: Q;
  body: B;
  deps: D;
}

/**
 * One web page (or form post), declared the way `src/http/routes` declares an API operation: its
 * method, address, access and the zod schemas of what it reads. A face's register function only
 * lists pages (`registerPages`); no handler casts `request.params`, `request.query` or `request.body`.
 */
export interface WebPage<D, A extends WebAuth, P = unknown, Q = unknown, B = unknown> {
  method: 'GET' | 'POST';
  /** Relative to the face's prefix: `/developers/keys/:key_id/revoke`. */
  url: string;
  auth: A;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  /** Urlencoded forms only; a multipart page reads its parts itself and declares no body. */
  body?: z.ZodType<B>;
  /** Route config beyond `auth` that a face's hooks read (the applicant upload's `csrfInStream`). */
  config?: Record<string, unknown>;
  bodyLimit?: number;
  /** A route onSend hook, run after the face's own (the API reference widens the content security policy with it). */
  onSend?: onSendHookHandler;
  handler: (input: PageInput<D, P, Q, B>) => unknown;
}

/**
 * A form field as a page reads it: one text, '' when absent. A repeated field is read as its last
 * value, as a browser sends the last of two inputs of one name.
 */
export const formText = z.preprocess((v) => (Array.isArray(v) ? v[v.length - 1] : v), z.string().default(''));

/** A field that may repeat (checkboxes): always a list of texts. */
export const formList = z.preprocess((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]), z.array(z.string()));

/** A query value: its text, or undefined when absent (the first of repeated values). */
export const queryText = z.preprocess((v) => (Array.isArray(v) ? v[0] : v), z.string().optional());

const EMPTY = Object.freeze({});

/** Registers pages on a face's scope. Params that do not parse name nothing (404); a query or body that does not parse is a 400 page. */
export function registerPages<D, A extends WebAuth>(scope: FastifyInstance, deps: D, pages: readonly WebPage<D, A, any, any, any>[]): void {
  for (const page of pages) {
    scope.route({
      method: page.method,
      url: page.url,
      config: { ...page.config, auth: page.auth },
      ...(page.bodyLimit !== undefined ? { bodyLimit: page.bodyLimit } : {}),
      ...(page.onSend ? { onSend: page.onSend } : {}),
      handler: async (request, reply) => {
        const params = parseWith(page.params, request.params, 404);
        const query = parseWith(page.query, request.query, 400);
        const body = parseWith(page.body, request.body ?? {}, 400);
        return page.handler({ request, reply, params, query, body, deps });
      },
    });
  }
}

function parseWith<T>(schema: z.ZodType<T> | undefined, value: unknown, status: 404 | 400): T {
  if (!schema) return EMPTY as T;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  if (status === 404) throw new AppError('not_found', 'No page has this address.');
  throw new AppError('invalid_request', 'The page could not read what was sent. Go back and try again.');
}
