import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { registerInputRules } from './input-rules.ts';
import { registerSecurityHeaders } from './security.ts';

/** Form posts are small: answers and settings, never files (uploads are multipart, with their own limits). */
export const FORM_BODY_LIMIT = 64 * 1024;

/**
 * What both web faces need and the API must not get: cookies, URL-encoded forms, compressed HTML,
 * the security headers and the API's rules for impossible input. Registered inside the web scope
 * only, so API responses keep their byte-for-byte JSON and their own error envelope.
 */
export async function registerFaceBasics(scope: FastifyInstance): Promise<void> {
  await scope.register(cookie);
  await scope.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
  // Assets are compressed ahead of time (they carry content-encoding already, so this skips them).
  await scope.register(compress, { global: true, threshold: 1024, encodings: ['br', 'gzip'] });
  registerSecurityHeaders(scope);
  registerInputRules(scope);
}

/** Cookie attributes both faces share: not readable by script, and Secure when the address is https. */
export function cookieBase(url: string): { httpOnly: true; secure: boolean } {
  return { httpOnly: true, secure: url.startsWith('https:') };
}

/** Reads one field of a parsed URL-encoded or JSON form body as text ('' when absent or not text). */
export function formField(body: unknown, name: string): string {
  if (body === null || typeof body !== 'object') return '';
  const value = (body as Record<string, unknown>)[name];
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : '';
  return typeof value === 'string' ? value : '';
}

/** All values of a repeated field (checkboxes). */
export function formFields(body: unknown, name: string): string[] {
  if (body === null || typeof body !== 'object') return [];
  const value = (body as Record<string, unknown>)[name];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}

/**
 * A path we may redirect to after signing in: ours, under the given prefix, never another host
 * (no scheme, no `//`, no backslash tricks).
 */
export function safeLocalPath(candidate: string, prefix: string): string | undefined {
  if (!candidate.startsWith(`${prefix}/`) && candidate !== prefix) return undefined;
  if (candidate.includes('//') || candidate.includes('\\') || /[\u0000-\u001f]/.test(candidate)) return undefined;
  return candidate;
}
