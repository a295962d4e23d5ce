import type { Logger } from 'pino';
import pg from 'pg';
import type { Db } from '../storage/schema.ts';
import { DELIVERY_CHANNEL } from '../storage/webhooks/deliveries.ts';

/** A wake-up that is not lost when it comes before anyone waits: `set` latches until the next `wait`. */
export class Latch {
  #set = false;
  #release: (() => void) | undefined;

  set(): void {
    this.#set = true;
    this.#release?.();
  }

  /** Resolves at the next `set` (at once if one is pending) or after `ms`. */
  async wait(ms: number): Promise<void> {
    if (!this.#set && ms > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        const self = this;
        function done() {
          clearTimeout(timer);
          self.#release = undefined;
          resolve();
        }
        this.#release = done;
      });
    }
    this.#set = false;
  }
}

/**
 * In-process wake-ups, per database handle. On the embedded database everything runs in one
 * process over one connection, so a wake-up sent from inside the enqueuing transaction cannot be
 * seen early: the worker's claim queues behind that transaction on the single connection and runs
 * after its commit. On PostgreSQL it merely saves same-process workers the NOTIFY round trip.
 * Correctness never rests on it: NOTIFY and the poll cover every case.
 */
const subscribers = new WeakMap<Db, Set<() => void>>();

export function onDeliveriesQueued(db: Db, wake: () => void): () => void {
  let set = subscribers.get(db);
  if (!set) subscribers.set(db, (set = new Set()));
  set.add(wake);
  return () => set.delete(wake);
}

export function wakeDeliveryWorkers(db: Db): void {
  for (const wake of subscribers.get(db) ?? []) wake();
}

export interface DeliveryListener {
  close(): Promise<void>;
}

/**
 * A dedicated connection that LISTENs for queued deliveries (a pooled connection cannot: it is
 * handed to other queries between notifications). If the connection drops it is made again with
 * backoff, and `onNotify` fires once on reconnecting, since notifications sent meanwhile were lost.
 */
export function listenForDeliveries(url: string, onNotify: () => void, logger: Logger): DeliveryListener {
  let client: pg.Client | undefined;
  let closed = false;
  let retryMs = 500;
  let timer: NodeJS.Timeout | undefined;

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: url });
    client = c;
    c.on('notification', (msg) => {
      if (msg.channel === DELIVERY_CHANNEL) onNotify();
    });
    c.on('error', (err) => logger.warn({ err }, 'webhook LISTEN connection failed'));
    c.on('end', () => {
      if (closed || client !== c) return;
      client = undefined;
      timer = setTimeout(() => void connect(), retryMs);
      retryMs = Math.min(retryMs * 2, 30_000);
    });
    try {
      await c.connect();
      await c.query(`listen ${DELIVERY_CHANNEL}`);
      retryMs = 500;
      onNotify();
    } catch (err) {
      logger.warn({ err }, 'webhook LISTEN connection could not be opened; polling meanwhile');
      await c.end().catch(() => {});
    }
  };
  void connect();

  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      await client?.end().catch(() => {});
    },
  };
}

/**
 * Every way a delivery worker is woken: enqueues in this process (on this database handle) and,
 * given a PostgreSQL URL, a LISTEN connection. `close` ends both.
 */
export function subscribeToDeliveryWakeUps(ctx: { db: Db; logger: Logger }, listenUrl: string | null | undefined, wake: () => void): DeliveryListener {
  const unsubscribe = onDeliveriesQueued(ctx.db, wake);
  const listener = listenUrl ? listenForDeliveries(listenUrl, wake, ctx.logger) : undefined;
  return {
    async close() {
      unsubscribe();
      await listener?.close();
    },
  };
}
