import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

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
      parse(request, body as string, (err, value) => {
        if (err) {
          done(new AppError('invalid_json', 'The request body is not valid JSON.'), undefined);
        } else if (value === null || typeof value !== 'object' || Array.isArray(value)) {
          done(new AppError('invalid_request', 'The request body must be a JSON object.'), undefined);
        } else {
          done(null, value);
        }
      });
    },
  );
}
