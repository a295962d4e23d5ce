import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, errorStatus, errorType, type ErrorCode } from '../../domain/errors.ts';

export interface ErrorEnvelope {
  /** `param` is added to the spec's four fields only where one request field is at fault. */
  error: { type: string; code: ErrorCode; message: string; request_id: string; param?: string };
}

export function sendError(reply: FastifyReply, code: ErrorCode, message: string, headers: Record<string, string> = {}, param?: string) {
  const body: ErrorEnvelope = {
    error: { type: errorType(code), code, message, request_id: String(reply.request.id), ...(param === undefined ? {} : { param }) },
  };
  return reply.code(errorStatus(code)).headers(headers).type('application/json; charset=utf-8').send(body);
}

/** Fastify's own request errors, each mapped to the catalog code the foundation issue names. */
const FRAMEWORK_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'invalid_request', message: 'The request body exceeds the 1 MiB limit.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'invalid_request',
    message: 'Unsupported Content-Type: send the body as application/json.',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'invalid_json', message: 'The body is empty but Content-Type says JSON.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'invalid_request', message: 'Content-Length does not match the body.' },
};

function describeValidation(error: FastifyError): string {
  if (hasZodFastifySchemaValidationErrors(error)) {
    const first = error.validation[0];
    const where = first?.instancePath ? first.instancePath.replace(/^\//, '').replaceAll('/', '.') : '';
    const context = error.validationContext ?? 'request';
    return `Invalid ${context}${where ? ` at ${where}` : ''}: ${first?.message ?? 'failed validation'}.`;
  }
  return error.message;
}

/**
 * One error handler for the whole API: catalog errors as they are, framework errors mapped,
 * anything else a generic 500 whose detail goes only to the log, under the request id.
 */
export function registerErrorEnvelope(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError) return sendError(reply, error.code, error.message, { ...error.headers }, error.param);
    const framework = error.code ? FRAMEWORK_ERRORS[error.code] : undefined;
    if (framework) return sendError(reply, framework.code, framework.message);
    if (error.validation) return sendError(reply, 'invalid_request', describeValidation(error));
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(reply, 'invalid_request', error.message);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, 'internal_error', 'An unexpected error occurred. Quote the request_id when reporting it.');
  });

  app.setNotFoundHandler((request, reply) => {
    return sendError(reply, 'not_found', `No route ${request.method} ${request.url.split('?')[0]}.`);
  });
}

/**
 * Refusals by Node's HTTP parser (header overflow, an unknown method, a malformed request line)
 * never reach Fastify's router, so they are written on the socket here, still as the catalog
 * envelope with a request id. The catalog has no 408/431, so all are 400 invalid_request.
 */
export function clientError(error: Error & { code?: string }, socket: Socket, requestId: string): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const message =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'The request headers are too large.'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'The request was not received in time.'
        : error.code === 'HPE_INVALID_METHOD'
          ? 'Unknown HTTP method.'
          : 'The request is not valid HTTP.';
  const body = JSON.stringify({ error: { type: errorType('invalid_request'), code: 'invalid_request', message, request_id: requestId } } satisfies ErrorEnvelope);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
