import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../crypto/secret-box.ts';

/** Case file links live one hour (contract §9). */
export const CASE_FILE_TTL_SECONDS = 3600;

function mac(secret: string, caseId: string, expires: number): string {
  return createHmac('sha256', deriveKey(secret, 'case-file')).update(`${caseId}.${expires}`).digest('base64url');
}

/** `<expiry epoch seconds>.<HMAC>`: binds the case and the expiry, needs no storage. */
export function signCaseFileToken(secret: string, caseId: string, now: Date): string {
  const expires = Math.floor(now.getTime() / 1000) + CASE_FILE_TTL_SECONDS;
  return `${expires}.${mac(secret, caseId, expires)}`;
}

export type CaseFileTokenCheck = { ok: true } | { ok: false; reason: 'malformed' | 'forged' | 'expired' };

export function verifyCaseFileToken(secret: string, caseId: string, token: string, now: Date): CaseFileTokenCheck {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return { ok: false, reason: 'malformed' };
  const expires = Number(match[1]);
  const expected = Buffer.from(mac(secret, caseId, expires));
  const given = Buffer.from(match[2]!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'forged' };
  if (expires <= Math.floor(now.getTime() / 1000)) return { ok: false, reason: 'expired' };
  return { ok: true };
}

export function caseFileUrl(appUrl: string, caseId: string, token: string): string {
  return `${appUrl}/case-files/${caseId}?token=${token}`;
}
