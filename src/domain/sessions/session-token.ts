import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 random bits; only the SHA-256 is stored with the session. */
export function generateSessionToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashSessionToken(token) };
}

export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function sessionTokenMatches(token: string, storedHash: string): boolean {
  const a = Buffer.from(hashSessionToken(token), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function signedSessionUrl(appUrl: string, sessionId: string, token: string): string {
  return `${appUrl}/s/${sessionId}?token=${token}`;
}
