import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

/**
 * Counts hits per bucket. The bucket name carries its window, so a counter only needs to live
 * as long as one window; the limit itself is judged by the caller, because keys carry their own.
 */
export interface RateLimitStore {
  /** Adds one hit to `bucket` and returns how many the bucket now holds. */
  hit(bucket: string, windowSeconds: number): Promise<number>;
  close(): Promise<void>;
}

/** Far above any limit: the library only counts; it never rejects on its own. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

function storeOver(limiter: RateLimiterAbstract, close: () => Promise<void>): RateLimitStore {
  return {
    async hit(bucket) {
      const res = await limiter.consume(bucket, 1);
      return res.consumedPoints;
    },
    close,
  };
}

/** In-process counters: right for a single process (the embedded database allows no other). */
export function memoryRateLimitStore(windowSeconds = 60): RateLimitStore {
  // Expiry a little past the window so a bucket is never dropped before its window ends.
  const limiter = new RateLimiterMemory({ points: UNBOUNDED, duration: windowSeconds + 5, keyPrefix: 'rl' });
  return storeOver(limiter, async () => {});
}

/**
 * Counters in Redis, shared by every process pointing at it. rate-limiter-flexible does the
 * atomic increment-with-expiry; when Redis is unreachable it falls back to in-process counters
 * rather than refusing traffic (an outage of the limiter must not become an outage of the API).
 */
export function redisRateLimitStore(url: string, windowSeconds = 60): RateLimitStore {
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
  client.on('error', () => {
    // reconnects on its own; the insurance limiter covers the gap
  });
  const limiter = new RateLimiterRedis({
    storeClient: client,
    points: UNBOUNDED,
    duration: windowSeconds + 5,
    keyPrefix: 'dossier:rl',
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ points: UNBOUNDED, duration: windowSeconds + 5, keyPrefix: 'rl' }),
  });
  return storeOver(limiter, async () => {
    client.disconnect();
  });
}
