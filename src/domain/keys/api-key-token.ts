import { createHash } from 'node:crypto';
import type { Environment } from '../../config.ts';
import { randomBase62 } from '../../ports/ids.ts';

/** 43 base62 characters carry 256 bits (log2(62) × 43 ≈ 256), above the 192 the contract asks for. */
const SECRET_LENGTH = 43;
const KEY_PATTERN = /^sk_(test|live)_([0-9A-Za-z]{43})$/;

export interface GeneratedApiKey {
  /** The key itself: shown once, never stored. */
  key: string;
  hash: string;
  hint: string;
}

export function generateApiKey(environment: Environment): GeneratedApiKey {
  const key = `sk_${environment}_${randomBase62(SECRET_LENGTH)}`;
  return { key, hash: hashApiKey(key), hint: key.slice(-4) };
}

/**
 * SHA-256 without a salt is right for keys: they carry 256 random bits, so there is nothing to
 * brute-force, and a deterministic hash lets us find the key by an indexed lookup.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The environment a well-formed key names, or undefined for anything malformed. */
export function parseApiKeyEnvironment(key: string): Environment | undefined {
  const match = KEY_PATTERN.exec(key);
  return match ? (match[1] as Environment) : undefined;
}
