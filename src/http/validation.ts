import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import { AppError, type ErrorCode } from '../domain/errors.ts';

/** Which catalog code a field's failure becomes: absent (or empty) vs present but wrong. */
export interface FieldErrorCodes {
  missing?: ErrorCode;
  invalid?: ErrorCode;
}

const fieldCodes = new WeakMap<object, Record<string, FieldErrorCodes>>();

/**
 * Attaches catalog codes to a request schema's fields, so a validation failure is answered with
 * the spec's code (`missing_case_type_id`, `invalid_limit`, …) rather than a generic one. The schema
 * itself is unchanged: the same object documents the route in OpenAPI.
 */
export function withErrorCodes<T extends z.ZodType>(schema: T, codes: Record<string, FieldErrorCodes>): T {
  fieldCodes.set(schema, codes);
  return schema;
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function describePath(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : String(p))).join('.').replaceAll('.[', '[');
}

/** Turns the first zod issue into the catalog error for its field. */
export function validationError(schema: object, issues: readonly z.core.$ZodIssue[], data: unknown, part: string): AppError {
  const issue = issues[0];
  const field = issue?.path[0];
  const where = issue && issue.path.length > 0 ? describePath(issue.path) : part;
  const message = `${where}: ${issue?.message ?? 'is invalid'}`;
  // The field at fault, as `param` (Stripe's name for it); a whole-body problem names none.
  const param = issue && issue.path.length > 0 ? where : undefined;
  const codes = typeof field === 'string' ? fieldCodes.get(schema)?.[field] : undefined;
  if (codes) {
    const value = data !== null && typeof data === 'object' ? (data as Record<string, unknown>)[field as string] : undefined;
    if (codes.missing && isAbsent(value)) return new AppError(codes.missing, `${String(field)} is required.`, {}, String(field));
    if (codes.invalid) return new AppError(codes.invalid, `Invalid ${message}.`, {}, param);
  }
  return new AppError('invalid_request', `Invalid ${message}.`, {}, param);
}

/** Longest path id we accept at all; ours are ~30 characters, the documented maximum (delivery ids) is 255. */
export const MAX_PATH_ID_LENGTH = 255;

/**
 * The name of a path parameter that no stored id can have (too long, or holding control
 * characters such as NUL, which PostgreSQL refuses in text), so the answer is 404 without a
 * database round trip. Invalid UTF-8 never gets this far: the router refuses it as a bad URL.
 */
export function impossiblePathValue(params: unknown): string | undefined {
  if (params === null || typeof params !== 'object') return undefined;
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'string' && (value.length > MAX_PATH_ID_LENGTH || /[\u0000-\u001f\u007f]/.test(value))) return name;
  }
  return undefined;
}

/** The name of a field (query, header or flat form body) whose text holds NUL, which PostgreSQL refuses in text. */
export function fieldWithNul(data: unknown): string | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  for (const [name, value] of Object.entries(data)) {
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && v.includes('\u0000'))) return name;
  }
  return undefined;
}

/**
 * Fastify validator for zod schemas: failures become catalog errors (see `withErrorCodes`). A
 * missing body is validated as `{}` so its required fields are reported by name.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  return (data: unknown) => {
    if (httpPart === 'params') {
      const impossible = impossiblePathValue(data);
      if (impossible !== undefined) return { error: new AppError('not_found', `No resource has the ${impossible} given in the path.`) };
    } else if (httpPart === 'querystring' || httpPart === 'headers') {
      const field = fieldWithNul(data);
      if (field !== undefined) return { error: new AppError('invalid_request', `Invalid ${field}: text may not contain the NUL character.`, {}, field) };
    }
    const input = httpPart === 'body' && (data === null || data === undefined) ? {} : data;
    const result = schema.safeParse(input);
    if (result.success) return { value: result.data };
    const error = validationError(schema, result.error.issues, input, httpPart ?? 'request');
    // A path id that is present but fails its schema (too long, wrong shape) names nothing stored.
    if (httpPart === 'params' && error.code === 'invalid_request') return { error: new AppError('not_found', `No resource matches this path: ${error.message}`) };
    return { error };
  };
};
