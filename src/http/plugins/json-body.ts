import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body's text as received, for a known replay's fingerprint (sessions.create.ts). */
    rawJsonBody?: string;
  }
}

export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Deepest nesting a JSON body may have. Our own documents nest 4–5 levels (prefill, structured
 * inputs); the limit keeps recursive code (canonical JSON, zod, the PostgreSQL jsonb encoder)
 * far from the stack limit, which a 1 MiB body of `[` would otherwise reach.
 */
export const MAX_JSON_DEPTH = 32;

/** True when the JSON text nests objects/arrays deeper than `max`; one pass over the raw text, before any parse. */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** PostgreSQL refuses U+0000 in text and jsonb; a body holding one is refused here, not as a 500 there. */
export function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(holdsNul);
  for (const [key, item] of Object.entries(value)) if (key.includes('\u0000') || holdsNul(item)) return true;
  return false;
}

/**
 * Parses an API JSON body: nesting beyond {@link MAX_JSON_DEPTH} and NUL characters are
 * `invalid_request`, text that is not JSON is `invalid_json`. Prototype keys are refused as invalid JSON.
 */
export function parseApiJson(text: string, parse: (text: string) => unknown): { ok: true; value: unknown } | { ok: false; error: AppError } {
  if (jsonTooDeep(text)) {
    return { ok: false, error: new AppError('invalid_request', `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`) };
  }
  let value: unknown;
  try {
    value = parse(text);
  } catch {
    return { ok: false, error: new AppError('invalid_json', 'The request body is not valid JSON.') };
  }
  if (holdsNul(value)) return { ok: false, error: new AppError('invalid_request', 'Text in the request body may not contain the NUL character (\\u0000).') };
  return { ok: true, value };
}

/**
 * The API speaks JSON objects only. Unparseable text is `invalid_json`; valid JSON that is not an
 * object (an array, a string, null) is `invalid_request`; any other media type is refused by
 * Fastify and mapped to `invalid_request` by the error envelope.
 */
export function registerJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    /^application\/([\w.+-]+\+)?json(\s*;.*)?$/i,
    { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES },
    (request, body, done) => {
      if (typeof body === 'string' && body.trim() === '') {
        done(new AppError('invalid_json', 'The body is empty but Content-Type says JSON.'), undefined);
        return;
      }
      const parsed = parseApiJson(body as string, (text) => {
        let out: unknown;
        parse(request, text, (err, value) => {
          if (err) throw err;
          out = value;
        });
        return out;
      });
      if (!parsed.ok) {
        done(parsed.error, undefined);
      } else if (parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
        done(new AppError('invalid_request', 'The request body must be a JSON object.'), undefined);
      } else {
        request.rawJsonBody = body as string;
        done(null, parsed.value);
      }
    },
  );
}
