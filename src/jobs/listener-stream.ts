import type { AppContext } from '../domain/deps.ts';
import { deliveryHeaders } from '../domain/webhooks/sent-request.ts';
import { signAttemptWithKeys } from '../domain/webhooks/signature.ts';
import { disconnectListener, LISTENER_REFRESH_MS, refreshListener } from '../domain/webhooks/listeners.ts';
import { randomBase62 } from '../ports/ids.ts';
import type { Tenant } from '../ports/tenant.ts';
import { claimDueDeliveriesUnscoped, countLeasedDeliveries, type ClaimedDelivery } from '../storage/webhooks/deliveries.ts';
import { LEASE_MARGIN_MS } from './leased-tasks.ts';
import { Latch } from './latch.ts';
import { SigningSecretCache } from './webhook-delivery/secret-cache.ts';

/** What a `dossier listen` stream sends for one delivery: everything the CLI needs to make the POST. */
export interface ListenerDeliveryEvent {
  delivery_id: string;
  /** Sent back with the result: the lease it was handed out under. */
  attempt_token: string;
  event_type: string;
  url: string;
  /** Exactly what a URL endpoint's attempt carries, both signature schemes included. */
  headers: Record<string, string>;
  body: string;
}

export interface ListenerStreamOptions {
  tenant: Tenant;
  endpointId: string;
  /** Tells leases of this stream apart from the delivery worker's (`listen:<connection id>`). */
  connectionId: string;
  /** Writes one event to the client; false when the client is not reading fast enough (nothing more is claimed until it drains). */
  send(event: ListenerDeliveryEvent): boolean;
  /** A comment line that keeps proxies from closing an idle stream. */
  heartbeat(): void;
  /** Safety net when no wake-up comes (enqueues in another process, retries falling due). */
  pollMs?: number;
}

/** Deliveries handed out and not heard back about, at most: a CLI that stops answering holds no more. */
const MAX_OUTSTANDING = 8;

/**
 * One open `dossier listen` stream: claims its listener's due deliveries with the delivery worker's
 * claim (one endpoint, `locked_by = listen:<connection>.<claim>`), signs each as a URL endpoint's
 * attempt would be, and hands it to the client. The result comes back through
 * `POST /webhooks/listen/results`, to any process. No result, and the lease runs out: the delivery
 * is due again and sent again (at least once). Woken in-process by enqueues and recorded results
 * (`ctx.wake`), with a poll as the safety net; every LISTENER_REFRESH_MS it marks the listener
 * connected for another 30 s and sends a heartbeat.
 */
export class ListenerStream {
  readonly #options: ListenerStreamOptions;
  readonly #latch = new Latch();
  readonly #secrets = new SigningSecretCache();
  #stopped = false;
  #loop: Promise<void> | undefined;
  #unsubscribe: (() => void) | undefined;
  #refresh: NodeJS.Timeout | undefined;
  #waitingForDrain = false;

  constructor(options: ListenerStreamOptions) {
    this.#options = options;
  }

  start(ctx: AppContext): void {
    this.#unsubscribe = ctx.wake.subscribe('webhook-deliveries', () => this.#latch.set());
    this.#refresh = setInterval(() => {
      this.#options.heartbeat();
      refreshListener(ctx, { tenant: this.#options.tenant, endpointId: this.#options.endpointId }).catch((err: unknown) => ctx.logger.warn({ err }, 'could not refresh a dossier listen connection'));
    }, LISTENER_REFRESH_MS);
    this.#loop = this.#run(ctx);
  }

  /** The client drained what was written: claiming resumes. */
  drained(): void {
    this.#waitingForDrain = false;
    this.#latch.set();
  }

  /** Stops claiming and marks the listener disconnected. Leases handed out are left to run out (their results may still come). */
  async stop(ctx: AppContext): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#refresh);
    this.#unsubscribe?.();
    this.#latch.set();
    await this.#loop;
    await disconnectListener(ctx, { tenant: this.#options.tenant, endpointId: this.#options.endpointId }).catch((err: unknown) => ctx.logger.warn({ err }, 'could not mark a dossier listen connection closed'));
  }

  async #run(ctx: AppContext): Promise<void> {
    const pollMs = this.#options.pollMs ?? 1_000;
    while (!this.#stopped) {
      let full = false;
      try {
        if (!this.#waitingForDrain) full = await this.#claimAndSend(ctx);
      } catch (err) {
        ctx.logger.error({ err, endpoint_id: this.#options.endpointId }, 'dossier listen claim failed');
      }
      if (!full && !this.#stopped) await this.#latch.wait(pollMs);
    }
  }

  /** Returns whether it claimed all it asked for (more may be waiting). */
  async #claimAndSend(ctx: AppContext): Promise<boolean> {
    const now = ctx.clock.now();
    const outstanding = await countLeasedDeliveries(ctx.db, this.#options.tenant, this.#options.endpointId, now);
    const room = MAX_OUTSTANDING - outstanding;
    if (room <= 0) return false;
    const token = `listen:${this.#options.connectionId}.${randomBase62(8)}`;
    // The CLI's POST has the same deadline as the worker's; the margin covers the two round trips to report it.
    const leaseUntil = new Date(now.getTime() + ctx.config.webhookTimeoutMs + 2 * LEASE_MARGIN_MS);
    // Unscoped as the worker's claim is, but filtered to this stream's endpoint, which is its workspace's.
    const claimed = await claimDueDeliveriesUnscoped(ctx.db, {
      workerId: token,
      now,
      leaseUntil,
      limit: room,
      perEndpointLimit: room,
      inFlight: new Map(),
      endpointId: this.#options.endpointId,
    });
    for (const delivery of claimed) {
      if (!this.#options.send(this.#eventOf(ctx, delivery, token))) this.#waitingForDrain = true;
    }
    return claimed.length === room && !this.#waitingForDrain;
  }

  #eventOf(ctx: AppContext, delivery: ClaimedDelivery, token: string): ListenerDeliveryEvent {
    const now = ctx.clock.now();
    const keys = this.#secrets.get(ctx, delivery, now);
    return {
      delivery_id: delivery.delivery_id,
      attempt_token: token,
      event_type: delivery.event_type,
      url: delivery.url,
      headers: deliveryHeaders(signAttemptWithKeys(keys, delivery.delivery_id, Math.floor(now.getTime() / 1000), delivery.payload)),
      body: delivery.payload,
    };
  }
}
