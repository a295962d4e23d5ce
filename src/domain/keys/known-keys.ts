import type { Clock } from '../../ports/clock.ts';

/**
 * The keys this process knows to be good, so a request from an address over its failed-auth
 * budget can still be served when its key verifies (issue 23 §2b), while the address's unknown
 * keys keep costing no query.
 *
 * Held: the first 16 hex characters (64 bits) of each live key's hash. A prefix is enough: a
 * match only lets the request on to the ordinary lookup, which checks the full hash, revocation
 * and expiry; a guessed key matches some live prefix with odds of live keys / 2^64. 100,000 keys
 * take about 6 MB.
 *
 * Filled from the database: every live key on first need and again every 10 minutes (dropping
 * revoked ones), and between those the keys created since the last load, at most once a second
 * and only when a locked address shows a key not yet known. So an attack costs at most one small
 * query a second per process, however many keys it sends, and a key made by another process (the
 * CLI) is known within a second of first use. Keys this process finds by lookup are added as
 * they are found.
 */
export interface KnownKeys {
  /** Whether the key with this hash may be live; loads from the database at most once a second. */
  has(hash: string): Promise<boolean>;
  /** A key found live by lookup. */
  remember(hash: string): void;
}

const PREFIX_CHARS = 16;
const FULL_RELOAD_MS = 10 * 60_000;
const RELOAD_AT_MOST_EVERY_MS = 1_000;
/** Created-at is written from the clock of the process that made the key, before it commits: look back this far. */
const CREATED_AT_SLACK_MS = 60_000;

export function knownKeyHashes(loadLivePrefixes: (since: Date, now: Date) => Promise<string[]>, clock: Clock): KnownKeys {
  let prefixes = new Set<string>();
  let lastFull = Number.NEGATIVE_INFINITY;
  let lastLoad = Number.NEGATIVE_INFINITY;
  let loading: Promise<void> | undefined;

  async function load(now: number): Promise<void> {
    const full = now - lastFull >= FULL_RELOAD_MS;
    const since = full ? new Date(0) : new Date(lastLoad - CREATED_AT_SLACK_MS);
    lastLoad = now;
    const found = await loadLivePrefixes(since, new Date(now));
    if (full) {
      lastFull = now;
      prefixes = new Set(found);
    } else {
      for (const p of found) prefixes.add(p);
    }
  }

  return {
    async has(hash) {
      const prefix = hash.slice(0, PREFIX_CHARS);
      if (prefixes.has(prefix)) return true;
      const now = clock.now().getTime();
      if (!loading && Math.abs(now - lastLoad) >= RELOAD_AT_MOST_EVERY_MS) {
        loading = load(now).finally(() => {
          loading = undefined;
        });
      }
      // Requests that arrive during a load wait for it rather than start their own.
      if (loading) await loading;
      return prefixes.has(prefix);
    },
    remember(hash) {
      prefixes.add(hash.slice(0, PREFIX_CHARS));
    },
  };
}
