import type { Clock } from '../../ports/clock.ts';
import type { StoredKey } from '../../ports/key-lookup.ts';

/**
 * Remembers keys found by hash for a short while so a hot key costs no query per request, and
 * the keys verified under each exact Authorization header text, so a hot key costs no SHA-256 and
 * no parse either (issue 29: the hash was most of what authentication cost a replay).
 *
 * Revocation and expiry must bite within 5 s (foundation issue): an entry lives `ttlMs` (default
 * 4 s) from the moment its row was read, whichever map holds it, and expiry and revocation are
 * checked on every use by the caller. `forget(keyId)` (the revoking process) drops both at once.
 * Unknown keys are never cached, so a key works the moment it is created, and a header is
 * remembered only once it verified, so garbage headers cannot fill the map.
 *
 * Bounded: by hash the oldest entry goes first when full; by header the least recently used
 * (a hit moves its entry to the end of the map's order).
 */
export interface VerifiedKeyCache {
  find(hash: string): Promise<StoredKey | undefined>;
  /** The key verified under this exact header text within the TTL; no hashing, no query. */
  forHeader(authorization: string): StoredKey | undefined;
  /** Remembers a header whose key verified; it expires with the row it was verified against. */
  rememberHeader(authorization: string, key: StoredKey): void;
  forget(keyId: string): void;
}

/** Longer headers are not remembered (a key is 51 characters; "Bearer " and spaces add a few). */
const MAX_HEADER_CHARS = 128;

export function cacheKeyLookup(
  lookup: (hash: string) => Promise<StoredKey | undefined>,
  clock: Clock,
  options: { ttlMs?: number; maxEntries?: number } = {},
): VerifiedKeyCache {
  const ttlMs = options.ttlMs ?? 4_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, { key: StoredKey; until: number }>();
  const byHeader = new Map<string, { key: StoredKey; until: number }>();
  /** When each looked-up row stops being trusted: a header remembered later expires with it. */
  const readUntil = new WeakMap<StoredKey, number>();

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
        readUntil.set(key, now + ttlMs);
      }
      return key;
    },
    forHeader(authorization) {
      const hit = byHeader.get(authorization);
      if (hit === undefined) return undefined;
      byHeader.delete(authorization);
      if (hit.until <= clock.now().getTime()) return undefined;
      byHeader.set(authorization, hit);
      return hit.key;
    },
    rememberHeader(authorization, key) {
      if (authorization.length > MAX_HEADER_CHARS) return;
      const until = readUntil.get(key) ?? clock.now().getTime() + ttlMs;
      byHeader.delete(authorization);
      if (byHeader.size >= maxEntries) byHeader.delete(byHeader.keys().next().value as string);
      byHeader.set(authorization, { key, until });
    },
    forget(keyId) {
      for (const [hash, entry] of entries) if (entry.key.keyId === keyId) entries.delete(hash);
      for (const [header, entry] of byHeader) if (entry.key.keyId === keyId) byHeader.delete(header);
    },
  };
}
