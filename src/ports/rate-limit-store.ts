import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

/**
 * Counts hits per bucket. The bucket name carries its window, so a counter only needs to live
 * as long as one window; the limit itself is judged by the caller, because keys carry their own.
 */
export interface RateLimitStore {
  /** Adds one hit to `bucket` and returns how many the bucket now holds. */
  hit(bucket: string, windowSeconds: number): Promise<number>;
  /** True while a shared store is unreachable and hits are counted in this process only. */
  degraded(): boolean;
  close(): Promise<void>;
}

/** Far above any limit: the library only counts; it never rejects on its own. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

function storeOver(limiter: RateLimiterAbstract, close: () => Promise<void>, degraded: () => boolean = () => false): RateLimitStore {
  return {
    async hit(bucket) {
      const res = await limiter.consume(bucket, 1);
      return res.consumedPoints;
    },
    degraded,
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
export async function redisRateLimitStore(url: string, logger?: Logger, windowSeconds = 60): Promise<RateLimitStore> {
  // Loaded only when REDIS_URL is set: ioredis is 6 MB of RSS a single process never needs.
  const { Redis } = await import('ioredis');
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
  let lastError = '';
  let everFailed = false;
  client.on('error', (err: Error) => {
    // ioredis reconnects on its own and the insurance limiter covers the gap; say so once per kind of failure.
    if (err.message !== lastError) logger?.warn({ err }, 'redis rate-limit store unavailable; counting in-process meanwhile');
    lastError = err.message;
    everFailed = true;
  });
  client.on('ready', () => {
    if (everFailed) logger?.info('redis rate-limit store reachable again; counting in redis');
    lastError = '';
  });
  try {
    await client.connect();
  } catch {
    // reported by the error listener; start anyway on the insurance limiter
  }
  const limiter = new RateLimiterRedis({
    storeClient: client,
    points: UNBOUNDED,
    duration: windowSeconds + 5,
    keyPrefix: 'dossier:rl',
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ points: UNBOUNDED, duration: windowSeconds + 5, keyPrefix: 'rl' }),
  });
  return storeOver(
    limiter,
    async () => {
      client.disconnect();
    },
    () => client.status !== 'ready',
  );
}

/** Redis when REDIS_URL is set (shared by every process), otherwise in-process counters. */
export async function createRateLimitStore(redisUrl: string | undefined, logger: Logger): Promise<RateLimitStore> {
  return redisUrl ? redisRateLimitStore(redisUrl, logger) : memoryRateLimitStore();
}
