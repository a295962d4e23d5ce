import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../domain/crypto/secret-box.ts';

/**
 * CSRF tokens bound to what the form acts for (an applicant's session, an operator's session):
 * HMAC(derived key, binding). Stateless, so any process can check them, and useless for any other
 * session. The form field is `_csrf` on every state-changing form.
 */
export const CSRF_FIELD = '_csrf';

export function csrfToken(secret: string, purpose: string, binding: string): string {
  return createHmac('sha256', deriveKey(secret, `csrf:${purpose}`)).update(binding, 'utf8').digest('base64url');
}

export function csrfMatches(secret: string, purpose: string, binding: string, presented: unknown): boolean {
  if (typeof presented !== 'string' || presented.length === 0 || presented.length > 128) return false;
  const expected = Buffer.from(csrfToken(secret, purpose, binding));
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** A random value for double-submit forms that have no session yet (the sign-in form). */
export function randomCsrfNonce(): string {
  return randomBytes(24).toString('base64url');
}
