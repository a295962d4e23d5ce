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
  const codes = typeof field === 'string' ? fieldCodes.get(schema)?.[field] : undefined;
  if (codes) {
    const value = data !== null && typeof data === 'object' ? (data as Record<string, unknown>)[field as string] : undefined;
    if (codes.missing && isAbsent(value)) return new AppError(codes.missing, `${String(field)} is required.`);
    if (codes.invalid) return new AppError(codes.invalid, `Invalid ${message}.`);
  }
  return new AppError('invalid_request', `Invalid ${message}.`);
}

/**
 * Fastify validator for zod schemas: failures become catalog errors (see `withErrorCodes`). A
 * missing body is validated as `{}` so its required fields are reported by name.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  return (data: unknown) => {
    const input = httpPart === 'body' && (data === null || data === undefined) ? {} : data;
    const result = schema.safeParse(input);
    if (result.success) return { value: result.data };
    return { error: validationError(schema, result.error.issues, input, httpPart ?? 'request') };
  };
};
