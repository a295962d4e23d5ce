import type { AppContext } from '../domain/deps.ts';
import { claimDueDeliveriesUnscoped, DELIVERY_CHANNEL, releaseLeaseUnscoped, type ClaimedDelivery } from '../storage/webhooks/deliveries.ts';
import { attemptDelivery, type AttemptOutcome } from './webhook-delivery/attempt.ts';
import { EndpointCounts } from './webhook-delivery/endpoint-counts.ts';
import { OutcomeWriter } from './webhook-delivery/outcome-writer.ts';
import { SigningSecretCache } from './webhook-delivery/secret-cache.ts';
import { LeasedTask, tooLateToStart } from './leased-tasks.ts';
import { listenForNotifications } from './notify-listener.ts';

export const WEBHOOK_DELIVERY_TASK = 'webhook-delivery';

export interface WebhookDeliveryOptions {
  /** Attempts in flight in this worker at once. */
  maxInFlight?: number;
  /** Of those, at most this many to one endpoint: a slow or dead endpoint can hold no more. */
  perEndpointInFlight?: number;
  /** Safety-net poll when no wake-up comes (and the delay before retrying after an error). */
  pollMs?: number;
  /** The PostgreSQL URL to LISTEN on; default DATABASE_URL; null: no LISTEN (in-process wake-ups and the poll only). */
  listenUrl?: string | null;
  workerId?: string;
}

/** In hand (in flight plus leased ahead), as a multiple of the slots. */
const PREFETCH_FACTOR = 2;
/** Claims top up the ready queue in groups of at least this many. */
const CLAIM_BATCH = 8;
/** Outcomes that may wait to be recorded, as a multiple of the slots. */
const UNRECORDED_FACTOR = 4;

/**
 * The delivery engine of one worker: the leased pipeline (`leased-tasks.ts`) specialised with
 * slot scheduling. It leases due deliveries up to its free slots, sends each as soon as it is
 * leased, and hands outcomes to the batched writer as they finish, so a receiver taking ten
 * seconds holds its own slots and nobody else's. The parts live beside it in `webhook-delivery/`:
 * the attempt itself (`attempt.ts`), per-endpoint counts (`endpoint-counts.ts`), the
 * signing-secret cache (`secret-cache.ts`) and the batched outcome writes (`outcome-writer.ts`).
 *
 * Idle, it waits for a wake-up: NOTIFY (on PostgreSQL), an in-process enqueue, a freed slot
 * while work remains, or a retry falling due, up to `pollMs`.
 */
export class WebhookDeliveryTask extends LeasedTask {
  readonly #maxInFlight: number;
  readonly #listenUrl: string | null | undefined;
  /** Delivery id → its endpoint, for the attempts being sent. */
  readonly #inFlight = new Map<string, string>();
  readonly #endpoints: EndpointCounts;
  readonly #sends = new Set<Promise<void>>();
  readonly #secrets = new SigningSecretCache();
  readonly #writer: OutcomeWriter;
  /** Leased ahead of a free slot, oldest first. */
  #ready: { delivery: ClaimedDelivery; claimedAt: number }[] = [];
  #ctx: AppContext | undefined;
  #backlog = false;
  #coalesce: NodeJS.Timeout | undefined;
  #nextDueAt: number | undefined;

  constructor(options: WebhookDeliveryOptions = {}) {
    super({ name: WEBHOOK_DELIVERY_TASK, pollMs: options.pollMs ?? 1_000, wakeOn: 'webhook-deliveries', ...(options.workerId ? { workerId: options.workerId } : {}) });
    this.#maxInFlight = options.maxInFlight ?? 32;
    this.#listenUrl = options.listenUrl;
    this.#endpoints = new EndpointCounts(Math.min(options.perEndpointInFlight ?? 8, this.#maxInFlight));
    this.#writer = new OutcomeWriter(this.workerId, (batch) => this.#written(batch));
  }

  /** Deliveries this worker is sending right now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  protected runMs(ctx: AppContext): number {
    return ctx.config.webhookTimeoutMs;
  }

  /** In-process enqueues, and given a PostgreSQL URL (default DATABASE_URL), a LISTEN connection. */
  protected override subscribe(ctx: AppContext, wake: () => void): () => Promise<void> {
    this.#ctx = ctx;
    const unsubscribe = super.subscribe(ctx, wake);
    const listenUrl = this.#listenUrl === undefined ? ctx.config.databaseUrl : this.#listenUrl;
    const listener = listenUrl ? listenForNotifications(listenUrl, DELIVERY_CHANNEL, wake, ctx.logger) : undefined;
    return async () => {
      await unsubscribe();
      await listener?.close();
    };
  }

  protected override waitMs(ctx: AppContext): number {
    if (this.#nextDueAt === undefined) return this.pollMs;
    return Math.max(0, Math.min(this.pollMs, this.#nextDueAt - ctx.clock.now().getTime()));
  }

  protected claimAndRun(ctx: AppContext): Promise<number> {
    return this.#fill(ctx);
  }

  /** Hands back what was leased ahead, and lets the attempts in flight finish and their outcomes be recorded. */
  protected async settle(): Promise<void> {
    clearTimeout(this.#coalesce);
    if (this.#ctx) this.#launchReady(this.#ctx);
    while (this.#sends.size > 0 || this.#writer.busy) {
      await Promise.all([...this.#sends]);
      await this.#writer.busy;
    }
  }

  /**
   * Claims up to the room in hand: the slots, plus as many again leased ahead in `#ready`, so a
   * freed slot is refilled at once rather than after a claim's round trip. What is in hand counts
   * against each endpoint's limit, so the ready queue cannot fill up with one endpoint's work.
   */
  async #fill(ctx: AppContext): Promise<number> {
    const inHand = this.#inFlight.size + this.#ready.length;
    const room = Math.min(this.#maxInFlight * PREFETCH_FACTOR - inHand, this.#maxInFlight * UNRECORDED_FACTOR - this.#writer.unwritten);
    // Too little room to be worth a round trip: wait for slots to free (they wake the loop).
    if (room <= 0 || (inHand > 0 && room < Math.min(CLAIM_BATCH, this.#maxInFlight))) {
      this.#backlog = true;
      return 0;
    }
    const lease = this.lease(ctx, room);
    const now = lease.now;
    const claimed = await claimDueDeliveriesUnscoped(ctx.db, {
      ...lease,
      perEndpointLimit: this.#endpoints.limit,
      inFlight: this.#endpoints.counts,
    });
    // A full claim means more may be waiting; a short one that the queue is drained, except for
    // endpoints held back at their limit.
    this.#backlog = claimed.length === room;
    if (this.#nextDueAt !== undefined && this.#nextDueAt <= now.getTime()) this.#nextDueAt = undefined;
    const claimedAt = performance.now();
    for (const delivery of claimed) {
      this.#endpoints.take(delivery.endpoint_id);
      this.#ready.push({ delivery, claimedAt });
    }
    this.#endpoints.noteCapped();
    this.#launchReady(ctx);
    return claimed.length;
  }

  /**
   * Starts leased deliveries while slots are free. One that waited too long for a slot (behind
   * slow receivers) is handed back instead: its lease might run out mid-attempt and let another
   * worker send it at the same time.
   */
  #launchReady(ctx: AppContext): void {
    const stale: ClaimedDelivery[] = [];
    while (this.#inFlight.size < this.#maxInFlight && this.#ready.length > 0) {
      const { delivery, claimedAt } = this.#ready.shift()!;
      if (tooLateToStart(claimedAt) || this.stopped) stale.push(delivery);
      else this.#launch(ctx, delivery);
    }
    if (this.stopped) stale.push(...this.#ready.splice(0).map((r) => r.delivery));
    if (stale.length === 0) return;
    for (const d of stale) this.#endpoints.give(d.endpoint_id);
    const giveBack = releaseLeaseUnscoped(ctx.db, this.workerId, stale.map((d) => d.delivery_id)).catch((err: unknown) =>
      ctx.logger.warn({ err }, 'could not hand leases back; they run out on their own'),
    );
    this.#sends.add(giveBack);
    void giveBack.finally(() => this.#sends.delete(giveBack));
  }

  #launch(ctx: AppContext, delivery: ClaimedDelivery): void {
    this.#inFlight.set(delivery.delivery_id, delivery.endpoint_id);
    const send = attemptDelivery(ctx, { http: ctx.outbound.webhooks, secrets: this.#secrets }, delivery).then(
      // The slot frees as soon as the answer is in; the lease keeps the delivery out of every
      // claim until the writer has recorded its outcome.
      (outcome) => {
        this.#writer.add(ctx, outcome);
        this.#release(ctx, delivery.delivery_id);
      },
      (err: unknown) => {
        // A bug or an unopenable secret: the lease runs out and another attempt is made later.
        ctx.logger.error({ err, delivery_id: delivery.delivery_id }, 'webhook attempt could not be made');
        this.#release(ctx, delivery.delivery_id);
      },
    );
    this.#sends.add(send);
    void send.finally(() => this.#sends.delete(send));
  }

  #written(batch: readonly AttemptOutcome[]): void {
    for (const o of batch) {
      const at = o.record.next_attempt_at?.getTime();
      if (at !== undefined && (this.#nextDueAt === undefined || at < this.#nextDueAt)) this.#nextDueAt = at;
    }
    if (this.#backlog) this.latch.set();
  }

  /**
   * Frees a slot and refills it from the ready queue. While work remains, the queue is topped up
   * by claims in groups (or after a 2 ms pause), not one claim per freed slot.
   */
  #release(ctx: AppContext, deliveryId: string): void {
    const endpointId = this.#inFlight.get(deliveryId);
    if (endpointId === undefined) return;
    this.#inFlight.delete(deliveryId);
    this.#endpoints.give(endpointId);
    this.#launchReady(ctx);
    if (this.stopped || !(this.#backlog || this.#endpoints.wasCapped(endpointId))) return;
    const room = this.#maxInFlight * PREFETCH_FACTOR - this.#inFlight.size - this.#ready.length;
    if ((this.#backlog && room >= CLAIM_BATCH) || this.#inFlight.size === 0) {
      clearTimeout(this.#coalesce);
      this.#coalesce = undefined;
      this.latch.set();
    } else if (!this.#coalesce) {
      this.#coalesce = setTimeout(() => {
        this.#coalesce = undefined;
        this.latch.set();
      }, 2);
    }
  }
}

export function webhookDeliveryTask(options?: WebhookDeliveryOptions): WebhookDeliveryTask {
  return new WebhookDeliveryTask(options);
}
