import type { FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.ts';

/**
 * The idempotency key of a request: the body's `idempotency_key` wins over the `Idempotency-Key`
 * header (spec §4.4). Keys are 1–255 characters (contract §5).
 */
export function idempotencyKeyOf(request: FastifyRequest, bodyKey: string | undefined): string {
  const header = request.headers['idempotency-key'];
  const headerKey = Array.isArray(header) ? header[0] : header;
  const key = bodyKey ?? headerKey;
  if (key === undefined || key.trim() === '') {
    throw new AppError('missing_idempotency_key', 'An idempotency key is required: send the Idempotency-Key header or idempotency_key in the body.');
  }
  if (key.length > 255) throw new AppError('invalid_request', 'The idempotency key must be at most 255 characters.');
  return key;
}
