import type { Clock } from '../../ports/clock.ts';
import type { StoredKey } from '../../ports/key-lookup.ts';

/**
 * Remembers keys found by hash for a short while so a hot key costs no query per request.
 * Revocation and expiry must bite within 5 s (foundation issue): entries live `ttlMs` (default
 * 4 s) and expiry is checked on every use by the caller. Unknown keys are never cached, so a key
 * works the moment it is created. Bounded: the oldest entry goes first when full.
 */
export function cacheKeyLookup(
  lookup: (hash: string) => Promise<StoredKey | undefined>,
  clock: Clock,
  options: { ttlMs?: number; maxEntries?: number } = {},
): { find(hash: string): Promise<StoredKey | undefined>; forget(keyId: string): void } {
  const ttlMs = options.ttlMs ?? 4_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, { key: StoredKey; until: number }>();

  return {
    async find(hash) {
      const now = clock.now().getTime();
      const hit = entries.get(hash);
      if (hit && hit.until > now) return hit.key;
      if (hit) entries.delete(hash);
      const key = await lookup(hash);
      if (key) {
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
        entries.set(hash, { key, until: now + ttlMs });
      }
      return key;
    },
    forget(keyId) {
      for (const [hash, entry] of entries) if (entry.key.keyId === keyId) entries.delete(hash);
    },
  };
}
