import type { Environment } from '../config.ts';

/** What a request learns about the key that authenticated it. */
export interface AuthenticatedKey {
  keyId: string;
  orgId: string;
  environment: Environment;
  scopes: readonly string[];
  rateLimitPerMinute: number | null;
}

/** The stored facts authentication needs. */
export interface StoredKey extends AuthenticatedKey {
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/**
 * The process's key lookup (`AppContext.keys`): a verified-key cache over the keys table
 * (domain/keys/verified-key-cache.ts) and a filter of known hashes (domain/keys/known-keys.ts).
 * A port, so domain/deps.ts names it without importing the keys capability.
 */
export interface KeyLookup {
  find(hash: string): Promise<StoredKey | undefined>;
  /** The key verified under this exact Authorization header text a moment ago (≤ 4 s), if any. */
  forHeader(authorization: string): StoredKey | undefined;
  /** Remembers that `authorization` verified as `key` (only after every check passed). */
  rememberHeader(authorization: string, key: StoredKey): void;
  forget(keyId: string): void;
  /** Whether a key hash may be a live key, without a query per call (domain/keys/known-keys.ts). */
  isKnown(hash: string): Promise<boolean>;
}
