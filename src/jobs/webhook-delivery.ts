import type { AppContext } from '../domain/deps.ts';
import { claimDueDeliveriesUnscoped, DELIVERY_CHANNEL, type ClaimedDelivery } from '../storage/webhooks/deliveries.ts';
import { attemptDelivery, type AttemptOutcome } from './webhook-delivery/attempt.ts';
import { ClaimLane } from './webhook-delivery/claim-lane.ts';
import { claimCapsOf, nextClaimOffer, type ClaimOffer } from './webhook-delivery/claim-offers.ts';
import { EndpointCounts } from './webhook-delivery/endpoint-counts.ts';
import { OutcomeWriter } from './webhook-delivery/outcome-writer.ts';
import { SigningSecretCache } from './webhook-delivery/secret-cache.ts';
import { LEASE_MARGIN_MS, LeasedTask, tooLateToStart } from './leased-tasks.ts';
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
  /**
   * Claims that may run at once, each on a database session of its own (default 2; the embedded
   * database always has one). Each is offered half of what is free, so together they never
   * exceed a limit.
   */
  claimLanes?: number;
}

/** In hand (in flight plus leased ahead), as a multiple of the slots. */
const PREFETCH_FACTOR = 2;
/** Claims top up the ready queue in groups of at least this many. */
const CLAIM_BATCH = 8;
/** Outcomes that may wait to be recorded, as a multiple of the slots. */
const UNRECORDED_FACTOR = 4;

/** A leased delivery in hand: the lane whose session holds it, and when it was claimed. */
interface InHand {
  delivery: ClaimedDelivery;
  lane: ClaimLane;
  claimedAt: number;
}

/**
 * The delivery engine of one worker: the leased pipeline (`leased-tasks.ts`) specialised with
 * slot scheduling. It leases due deliveries up to its free slots, sends each as soon as it is
 * leased, and hands outcomes to the batched writer as they finish, so a receiver taking ten
 * seconds holds its own slots and nobody else's. The parts live beside it in `webhook-delivery/`:
 * the attempt itself (`attempt.ts`), per-endpoint counts (`endpoint-counts.ts`), the claiming
 * sessions (`claim-lane.ts`), the signing-secret cache (`secret-cache.ts`) and the batched
 * outcome writes (`outcome-writer.ts`).
 *
 * On PostgreSQL a delivery is leased by an advisory lock of the session that claimed it
 * (`DeliveryLease`, issue 29): the claim writes no row, the outcome (one statement: the row and
 * its attempt) is recorded on any pooled connection, and then the lock is released on the
 * claiming session; a worker that dies has its sessions, and so its locks, ended by PostgreSQL,
 * which makes its deliveries claimable again at once. Two sessions (lanes) let a claim start
 * while the other's round trip is still out; each claim is offered half of every endpoint's free
 * slots (`claim-offers.ts`), and a running claim's offer counts as taken until it returns, so the
 * per-endpoint limit holds exactly however the claims overlap.
 *
 * Idle, it waits for a wake-up: NOTIFY (on PostgreSQL), an in-process enqueue, a freed slot
 * while work remains, or a retry falling due, up to `pollMs`.
 */
export class WebhookDeliveryTask extends LeasedTask {
  readonly #maxInFlight: number;
  readonly #listenUrl: string | null | undefined;
  readonly #laneCount: number;
  /** Delivery id → what is being sent. */
  readonly #inFlight = new Map<string, InHand>();
  readonly #endpoints: EndpointCounts;
  readonly #sends = new Set<Promise<void>>();
  readonly #secrets = new SigningSecretCache();
  #lanes: ClaimLane[] = [];
  #writer: OutcomeWriter | undefined;
  /** Delivery id → the lane holding its lease, from launch until its outcome is written. */
  readonly #unrecorded = new Map<string, ClaimLane>();
  /** Claims running now, with what each was offered. */
  readonly #claims = new Map<ClaimOffer, Promise<number>>();
  /** Deliveries brought by claims that returned since `claimAndRun` last answered. */
  #claimedSinceRun = 0;
  /** Leased ahead of a free slot, oldest first. */
  #ready: InHand[] = [];
  #ctx: AppContext | undefined;
  #backlog = false;
  #coalesce: NodeJS.Timeout | undefined;
  #nextDueAt: number | undefined;

  constructor(options: WebhookDeliveryOptions = {}) {
    super({ name: WEBHOOK_DELIVERY_TASK, pollMs: options.pollMs ?? 1_000, wakeOn: 'webhook-deliveries', ...(options.workerId ? { workerId: options.workerId } : {}) });
    this.#maxInFlight = options.maxInFlight ?? 32;
    this.#listenUrl = options.listenUrl;
    this.#laneCount = Math.max(1, options.claimLanes ?? 2);
    this.#endpoints = new EndpointCounts(Math.min(options.perEndpointInFlight ?? 8, this.#maxInFlight));
  }

  /** Deliveries this worker is sending right now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Deliveries leased ahead of a free slot, and claims running (the bench samples them). */
  get leasedAhead(): { ready: number; claims: number; unwritten: number } {
    return { ready: this.#ready.length, claims: this.#claims.size, unwritten: this.#unwritten };
  }

  protected runMs(ctx: AppContext): number {
    return ctx.config.webhookTimeoutMs;
  }

  /** The claim lanes; in-process enqueues, and given a PostgreSQL URL (default DATABASE_URL), a LISTEN connection. */
  protected override subscribe(ctx: AppContext, wake: () => void): () => Promise<void> {
    this.#ctx = ctx;
    this.#openLanes(ctx);
    const unsubscribe = super.subscribe(ctx, wake);
    const listenUrl = this.#listenUrl === undefined ? ctx.config.databaseUrl : this.#listenUrl;
    const listener = listenUrl ? listenForNotifications(listenUrl, DELIVERY_CHANNEL, wake, ctx.logger) : undefined;
    return async () => {
      await unsubscribe();
      await listener?.close();
      await Promise.all(this.#lanes.map((lane) => lane.close()));
    };
  }

  #openLanes(ctx: AppContext): void {
    for (let i = 0; i < this.#laneCount; i++) {
      const session = ctx.openDatabaseSession();
      if (!session) break;
      this.#lanes.push(new ClaimLane({ session, workerId: this.workerId }));
    }
    if (this.#lanes.length === 0) this.#lanes.push(new ClaimLane({ db: ctx.db, workerId: this.workerId }));
    this.#writer = new OutcomeWriter(this.#lanes[0]!.holder, (batch, failed) => this.#written(ctx, batch, failed));
  }

  protected override waitMs(ctx: AppContext): number {
    if (this.#nextDueAt === undefined) return this.pollMs;
    return Math.max(0, Math.min(this.pollMs, this.#nextDueAt - ctx.clock.now().getTime()));
  }

  /**
   * Starts claims on the idle lanes while there is room, and returns once a claim has brought
   * something (or every running claim came back empty), with how many deliveries the claims that
   * returned since the last call brought: one claim coming back empty while the other is still
   * out does not make the worker idle.
   */
  protected async claimAndRun(ctx: AppContext): Promise<number> {
    this.#startClaims(ctx);
    while (this.#claimedSinceRun === 0 && this.#claims.size > 0) await Promise.race(this.#claims.values());
    const claimed = this.#claimedSinceRun;
    this.#claimedSinceRun = 0;
    return claimed;
  }

  /** Hands back what was leased ahead, and lets the claims and the attempts in flight finish and their outcomes be recorded. */
  protected async settle(): Promise<void> {
    clearTimeout(this.#coalesce);
    await Promise.all(this.#claims.values());
    if (this.#ctx) this.#launchReady(this.#ctx);
    const busy = () => [this.#writer?.busy, ...this.#lanes.map((lane) => lane.busy)].filter((b) => b !== undefined);
    while (this.#sends.size > 0 || busy().length > 0) {
      await Promise.all([...this.#sends]);
      await Promise.all(busy());
    }
  }

  get #unwritten(): number {
    return this.#writer?.unwritten ?? 0;
  }

  /** Slots in hand (in flight, leased ahead, offered to running claims) left before the prefetch and unrecorded bounds. */
  #room(): number {
    let offered = 0;
    for (const offer of this.#claims.keys()) offered += offer.limit;
    const inHand = this.#inFlight.size + this.#ready.length + offered;
    return Math.min(this.#maxInFlight * PREFETCH_FACTOR - inHand, this.#maxInFlight * UNRECORDED_FACTOR - this.#unwritten - offered);
  }

  /**
   * Claims up to the room in hand: the slots, plus as many again leased ahead in `#ready`, so a
   * freed slot is refilled at once rather than after a claim's round trip. What is in hand counts
   * against each endpoint's limit, so the ready queue cannot fill up with one endpoint's work.
   */
  #startClaims(ctx: AppContext): void {
    for (const lane of this.#lanes) {
      if (lane.claiming || this.stopped) continue;
      const inHand = this.#inFlight.size + this.#ready.length + this.#claims.size;
      const room = this.#room();
      // Too little room to be worth a round trip: wait for slots to free (they wake the loop).
      if (room <= 0 || (inHand > 0 && room < Math.min(CLAIM_BATCH, this.#maxInFlight))) {
        this.#backlog = true;
        return;
      }
      const offer = this.#offer(room);
      this.#claims.set(offer, this.#claimOn(ctx, lane, offer));
    }
  }

  /** What the next claim is offered (`claim-offers.ts`): with more than one lane, half of what is free. */
  #offer(room: number): ClaimOffer {
    return nextClaimOffer({
      room,
      perEndpointLimit: this.#endpoints.limit,
      inHand: this.#endpoints.counts,
      running: [...this.#claims.keys()],
      shared: this.#lanes.length > 1,
      // A claim's cost is mostly its round trip, so small claims cost more statements than the
      // overlap saves (measured: claims of 4 rows doubled the statements per delivery).
      minimum: CLAIM_BATCH,
    });
  }

  async #claimOn(ctx: AppContext, lane: ClaimLane, offer: ClaimOffer): Promise<number> {
    lane.claiming = true;
    let claimed: ClaimedDelivery[];
    let generation: number;
    const now = ctx.clock.now();
    const release = lane.lease === 'session' ? lane.takeReleases() : [];
    try {
      claimed = await claimDueDeliveriesUnscoped(lane.db, { ...this.lease(ctx, offer.limit), lease: lane.lease, release, ...claimCapsOf(offer) });
      lane.settleReleases(release, true);
      // Read after the claim returned: had the connection been replaced since, the locks are gone and the launch drops them.
      generation = lane.generation;
    } catch (err) {
      lane.settleReleases(release, false);
      ctx.logger.error({ err }, 'webhook delivery claim failed');
      return 0;
    } finally {
      lane.claiming = false;
      // From here what it claimed is counted in hand instead.
      this.#claims.delete(offer);
    }
    lane.hold(claimed.map((d) => d.delivery_id), generation);
    // A full claim means more may be waiting; a short one that the queue is drained, except for
    // endpoints held back at their limit.
    this.#backlog = claimed.length === offer.limit;
    if (this.#nextDueAt !== undefined && this.#nextDueAt <= now.getTime()) this.#nextDueAt = undefined;
    this.#claimedSinceRun += claimed.length;
    const claimedAt = performance.now();
    for (const delivery of claimed) {
      this.#endpoints.take(delivery.endpoint_id);
      this.#ready.push({ delivery, lane, claimedAt });
    }
    this.#endpoints.noteCapped();
    this.#launchReady(ctx);
    if (claimed.length > 0) this.latch.set();
    return claimed.length;
  }

  /**
   * Starts leased deliveries while slots are free. One that waited too long for a slot (behind
   * slow receivers) is handed back instead, and one whose lane lost its connection since the
   * claim is dropped (its lock went with the connection: another worker may already have it).
   */
  #launchReady(ctx: AppContext): void {
    const stale: InHand[] = [];
    while (this.#inFlight.size < this.#maxInFlight && this.#ready.length > 0) {
      const item = this.#ready.shift()!;
      if (tooLateToStart(item.claimedAt) || this.stopped || !this.#stillLeased(item)) stale.push(item);
      else this.#launch(ctx, item);
    }
    if (this.stopped) stale.push(...this.#ready.splice(0));
    if (stale.length === 0) return;
    for (const item of stale) this.#endpoints.give(item.delivery.endpoint_id);
    for (const lane of this.#lanes) {
      const ids = stale.filter((item) => item.lane === lane).map((item) => item.delivery.delivery_id);
      if (ids.length > 0) this.#releaseOn(ctx, lane, ids, { handBack: true });
    }
  }

  #stillLeased(item: InHand): boolean {
    return item.lane.stillHeld(item.delivery.delivery_id);
  }

  #releaseOn(ctx: AppContext, lane: ClaimLane, deliveryIds: readonly string[], options: { handBack: boolean }): void {
    const released = lane
      .release(deliveryIds, options)
      .catch((err: unknown) => ctx.logger.warn({ err }, 'could not release webhook delivery leases; they end with the connection or run out'));
    this.#sends.add(released);
    void released.finally(() => this.#sends.delete(released));
  }

  /** A session lock released when a row lease would have run out; a row lease just runs out. */
  #releaseLater(ctx: AppContext, lane: ClaimLane, deliveryId: string): void {
    if (lane.lease !== 'session') return;
    setTimeout(() => this.#releaseOn(ctx, lane, [deliveryId], { handBack: true }), this.runMs(ctx) + LEASE_MARGIN_MS).unref();
  }

  #launch(ctx: AppContext, item: InHand): void {
    const { delivery, lane } = item;
    this.#inFlight.set(delivery.delivery_id, item);
    const writer = this.#writer!;
    const send = attemptDelivery(ctx, { http: ctx.outbound.webhooks, secrets: this.#secrets }, delivery).then(
      // The slot frees as soon as the answer is in; the lease keeps the delivery out of every
      // claim until the writer has recorded its outcome.
      (outcome) => {
        this.#unrecorded.set(delivery.delivery_id, lane);
        writer.add(ctx, outcome);
        this.#release(ctx, delivery.delivery_id);
      },
      (err: unknown) => {
        // A bug or an unopenable secret: another attempt is made once a lease would have run out
        // (a row lease does; a lock is released then), not at once, which would spin on the bug.
        ctx.logger.error({ err, delivery_id: delivery.delivery_id }, 'webhook attempt could not be made');
        this.#releaseLater(ctx, lane, delivery.delivery_id);
        this.#release(ctx, delivery.delivery_id);
      },
    );
    this.#sends.add(send);
    void send.finally(() => this.#sends.delete(send));
  }

  /**
   * After a batch was written: its leases are released, so the next claim may take what is due
   * again. What failed to be written is released a lease's length later (a row lease runs out on
   * its own), as a dead worker's would be: not sent again at once while writes fail.
   */
  #written(ctx: AppContext, batch: readonly AttemptOutcome[], failed: ReadonlySet<string>): void {
    const byLane = new Map<ClaimLane, string[]>();
    for (const { delivery } of batch) {
      const lane = this.#unrecorded.get(delivery.delivery_id);
      this.#unrecorded.delete(delivery.delivery_id);
      if (!lane) continue;
      if (failed.has(delivery.delivery_id)) this.#releaseLater(ctx, lane, delivery.delivery_id);
      else byLane.set(lane, [...(byLane.get(lane) ?? []), delivery.delivery_id]);
    }
    for (const [lane, ids] of byLane) this.#releaseOn(ctx, lane, ids, { handBack: false });
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
    const item = this.#inFlight.get(deliveryId);
    if (item === undefined) return;
    this.#inFlight.delete(deliveryId);
    const endpointId = item.delivery.endpoint_id;
    this.#endpoints.give(endpointId);
    this.#launchReady(ctx);
    if (this.stopped || !(this.#backlog || this.#endpoints.wasCapped(endpointId))) return;
    const room = this.#room();
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
