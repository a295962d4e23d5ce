import { hostname } from 'node:os';
import type { AppContext } from '../app-context.ts';
import { createSafeHttpClient, type OutboundHttp } from '../net/safe-fetch.ts';
import { randomBase62 } from '../ports/ids.ts';
import { claimDueDeliveriesUnscoped, releaseLeaseUnscoped, type ClaimedDelivery } from '../storage/webhooks/deliveries.ts';
import { attemptDelivery, type AttemptOutcome } from './webhook-delivery/attempt.ts';
import { EndpointCounts } from './webhook-delivery/endpoint-counts.ts';
import { OutcomeWriter } from './webhook-delivery/outcome-writer.ts';
import { SigningSecretCache } from './webhook-delivery/secret-cache.ts';
import type { JobTask } from './worker.ts';
import { Latch, subscribeToDeliveryWakeUps, type DeliveryListener } from './webhook-wake.ts';

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
  /** The outbound client; default the SSRF-safe client built from the configuration. */
  http?: OutboundHttp;
  workerId?: string;
}

/** Beyond the attempt deadline, how long a lease lasts: time to record the outcome. */
const LEASE_MARGIN_MS = 5_000;
/** In hand (in flight plus leased ahead), as a multiple of the slots. */
const PREFETCH_FACTOR = 2;
/** Claims top up the ready queue in groups of at least this many. */
const CLAIM_BATCH = 8;
/** Outcomes that may wait to be recorded, as a multiple of the slots. */
const UNRECORDED_FACTOR = 4;

/**
 * The delivery engine of one worker: slot scheduling. It leases due deliveries up to its free
 * slots, sends each as soon as it is leased, and hands outcomes to the batched writer as they
 * finish, so a receiver taking ten seconds holds its own slots and nobody else's. The parts live
 * beside it in `webhook-delivery/`: the attempt itself (`attempt.ts`), per-endpoint counts
 * (`endpoint-counts.ts`), the signing-secret cache (`secret-cache.ts`) and the batched outcome
 * writes (`outcome-writer.ts`); wake-ups (LISTEN, in-process) are in `webhook-wake.ts`.
 *
 * `run` is the Worker's loop body: it claims what it can and, when there is nothing to claim,
 * waits itself for a wake-up (NOTIFY, an in-process enqueue, a freed slot while work remains, a
 * retry falling due) up to `pollMs`. The Worker cannot be woken from outside its tasks, so the
 * waiting lives here; `idleMs` only spaces out the loop after an idle run.
 */
export class WebhookDeliveryTask implements JobTask {
  readonly name = WEBHOOK_DELIVERY_TASK;
  readonly idleMs = 5;
  readonly workerId: string;

  readonly #maxInFlight: number;
  readonly #pollMs: number;
  readonly #options: WebhookDeliveryOptions;
  readonly #latch = new Latch();
  /** Delivery id → its endpoint, for the attempts being sent. */
  readonly #inFlight = new Map<string, string>();
  readonly #endpoints: EndpointCounts;
  readonly #sends = new Set<Promise<void>>();
  readonly #secrets = new SigningSecretCache();
  readonly #writer: OutcomeWriter;
  /** Leased ahead of a free slot, oldest first. */
  #ready: { delivery: ClaimedDelivery; claimedAt: number }[] = [];
  #ctx: AppContext | undefined;
  #http: OutboundHttp | undefined;
  #ownsHttp = false;
  #wakeUps: DeliveryListener | undefined;
  #backlog = false;
  #coalesce: NodeJS.Timeout | undefined;
  #nextDueAt: number | undefined;
  #stopped = false;

  constructor(options: WebhookDeliveryOptions = {}) {
    this.#options = options;
    this.#maxInFlight = options.maxInFlight ?? 32;
    this.#endpoints = new EndpointCounts(Math.min(options.perEndpointInFlight ?? 8, this.#maxInFlight));
    this.#pollMs = options.pollMs ?? 1_000;
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomBase62(8)}`;
    this.#writer = new OutcomeWriter(this.workerId, (batch) => this.#written(batch));
  }

  async run(ctx: AppContext): Promise<number> {
    if (this.#stopped) return 0;
    this.#start(ctx);
    try {
      let claimed = await this.#fill(ctx);
      if (claimed === 0) {
        await this.#latch.wait(this.#waitMs(ctx));
        if (this.#stopped) return 0;
        claimed = await this.#fill(ctx);
      }
      return claimed;
    } catch (err) {
      ctx.logger.error({ err, task: this.name }, 'webhook delivery claim failed');
      await this.#latch.wait(this.#pollMs);
      return 0;
    }
  }

  /** Wakes this task's wait now (tests, and callers that know work was queued in-process). */
  wake(): void {
    this.#latch.set();
  }

  /** Deliveries this worker is sending right now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /**
   * Stops claiming, lets the attempts in flight finish and their outcomes be recorded, and closes
   * the LISTEN connection and the HTTP client. Call before closing the database.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#latch.set();
    clearTimeout(this.#coalesce);
    if (this.#ctx) this.#launchReady(this.#ctx);
    while (this.#sends.size > 0 || this.#writer.busy) {
      await Promise.all([...this.#sends]);
      await this.#writer.busy;
    }
    await this.#wakeUps?.close();
    if (this.#ownsHttp) await this.#http?.close();
    this.#wakeUps = undefined;
  }

  #start(ctx: AppContext): void {
    if (this.#ctx) return;
    this.#ctx = ctx;
    if (this.#options.http) {
      this.#http = this.#options.http;
    } else {
      this.#http = createSafeHttpClient({ policy: { allowPrivateNetwork: ctx.config.allowPrivateNetwork }, timeoutMs: ctx.config.webhookTimeoutMs });
      this.#ownsHttp = true;
    }
    const listenUrl = this.#options.listenUrl === undefined ? ctx.config.databaseUrl : this.#options.listenUrl;
    this.#wakeUps = subscribeToDeliveryWakeUps(ctx, listenUrl, () => this.#latch.set());
  }

  #waitMs(ctx: AppContext): number {
    if (this.#nextDueAt === undefined) return this.#pollMs;
    return Math.max(0, Math.min(this.#pollMs, this.#nextDueAt - ctx.clock.now().getTime()));
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
    const now = ctx.clock.now();
    const claimed = await claimDueDeliveriesUnscoped(ctx.db, {
      workerId: this.workerId,
      now,
      leaseUntil: new Date(now.getTime() + ctx.config.webhookTimeoutMs + LEASE_MARGIN_MS),
      limit: room,
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
      if (performance.now() - claimedAt > LEASE_MARGIN_MS / 2 || this.#stopped) stale.push(delivery);
      else this.#launch(ctx, delivery);
    }
    if (this.#stopped) stale.push(...this.#ready.splice(0).map((r) => r.delivery));
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
    const send = attemptDelivery(ctx, { http: this.#http!, secrets: this.#secrets }, delivery).then(
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
    if (this.#backlog) this.#latch.set();
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
    if (this.#stopped || !(this.#backlog || this.#endpoints.wasCapped(endpointId))) return;
    const room = this.#maxInFlight * PREFETCH_FACTOR - this.#inFlight.size - this.#ready.length;
    if ((this.#backlog && room >= CLAIM_BATCH) || this.#inFlight.size === 0) {
      clearTimeout(this.#coalesce);
      this.#coalesce = undefined;
      this.#latch.set();
    } else if (!this.#coalesce) {
      this.#coalesce = setTimeout(() => {
        this.#coalesce = undefined;
        this.#latch.set();
      }, 2);
    }
  }
}

export function webhookDeliveryTask(options?: WebhookDeliveryOptions): WebhookDeliveryTask {
  return new WebhookDeliveryTask(options);
}
