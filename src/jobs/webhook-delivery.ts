import { hostname } from 'node:os';
import type { AppContext } from '../app-context.ts';
import {
  applyAttemptEffects,
  decideAfterAttempt,
  hasSideEffects,
  type AttemptDecision,
} from '../domain/webhooks/attempt-outcome.ts';
import { signingSecretsOf } from '../domain/webhooks/endpoints.ts';
import { signAttempt } from '../domain/webhooks/signature.ts';
import { createSafeHttpClient, type FetchResult, type OutboundHttp } from '../net/safe-fetch.ts';
import { randomBase62 } from '../ports/ids.ts';
import { inTransaction } from '../storage/unit-of-work.ts';
import {
  claimDueDeliveries,
  inRelaxedCommit,
  recordAttemptOutcomes,
  releaseLease,
  type ClaimedDelivery,
  type RecordedAttempt,
} from '../storage/webhooks/deliveries.ts';
import type { JobTask } from './worker.ts';
import { Latch, listenForDeliveries, onDeliveriesQueued, type DeliveryListener } from './webhook-wake.ts';

export const WEBHOOK_DELIVERY_TASK = 'webhook-delivery';
export const WEBHOOK_USER_AGENT = 'Dossier-Webhooks/1.0';

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

interface InFlight {
  endpointId: string;
}

interface Outcome {
  delivery: ClaimedDelivery;
  decision: AttemptDecision;
  record: RecordedAttempt;
}

/** Beyond the attempt deadline, how long a lease lasts: time to record the outcome. */
const LEASE_MARGIN_MS = 5_000;
/** In hand (in flight plus leased ahead), as a multiple of the slots. */
const PREFETCH_FACTOR = 2;
/** Claims top up the ready queue in groups of at least this many. */
const CLAIM_BATCH = 8;
/** Outcomes that may wait to be recorded, as a multiple of the slots. */
const UNRECORDED_FACTOR = 4;
/** Bounded cache of opened signing secrets: opening (AES-GCM) per attempt is cheap but not free. */
const SECRET_CACHE_SIZE = 1_000;

/**
 * The delivery engine of one worker: a pipeline rather than batches. It leases due deliveries up
 * to its free slots, sends each as soon as it is leased, and records outcomes as they finish, so
 * a receiver taking ten seconds holds its own slots and nobody else's. Outcomes are written in
 * batches (one statement for plain ones, one transaction each for those with consequences), which
 * is what lets a single worker keep up with a fast receiver.
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
  readonly #perEndpoint: number;
  readonly #pollMs: number;
  readonly #options: WebhookDeliveryOptions;
  readonly #latch = new Latch();
  readonly #inFlight = new Map<string, InFlight>();
  readonly #perEndpointCount = new Map<string, number>();
  readonly #sends = new Set<Promise<void>>();
  readonly #secrets = new Map<string, string[]>();
  /** Leased ahead of a free slot, oldest first. */
  #ready: { delivery: ClaimedDelivery; claimedAt: number }[] = [];
  #pending: Outcome[] = [];
  /** Outcomes waiting to be written, or being written. */
  #unrecorded = 0;
  #flushing: Promise<void> | undefined;
  #ctx: AppContext | undefined;
  #http: OutboundHttp | undefined;
  #ownsHttp = false;
  #listener: DeliveryListener | undefined;
  #unsubscribe: (() => void) | undefined;
  #backlog = false;
  /** Endpoints at their per-endpoint limit after the last claim: a slot of theirs freeing may uncover due work. */
  #capped = new Set<string>();
  #coalesce: NodeJS.Timeout | undefined;
  #nextDueAt: number | undefined;
  #stopped = false;

  constructor(options: WebhookDeliveryOptions = {}) {
    this.#options = options;
    this.#maxInFlight = options.maxInFlight ?? 32;
    this.#perEndpoint = Math.min(options.perEndpointInFlight ?? 8, this.#maxInFlight);
    this.#pollMs = options.pollMs ?? 1_000;
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomBase62(8)}`;
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
    while (this.#sends.size > 0 || this.#flushing) {
      await Promise.all([...this.#sends]);
      await this.#flushing;
    }
    this.#unsubscribe?.();
    await this.#listener?.close();
    if (this.#ownsHttp) await this.#http?.close();
    this.#listener = undefined;
    this.#unsubscribe = undefined;
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
    this.#unsubscribe = onDeliveriesQueued(ctx.db, () => this.#latch.set());
    const listenUrl = this.#options.listenUrl === undefined ? ctx.config.databaseUrl : this.#options.listenUrl;
    if (listenUrl) this.#listener = listenForDeliveries(listenUrl, () => this.#latch.set(), ctx.logger);
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
    const room = Math.min(this.#maxInFlight * PREFETCH_FACTOR - inHand, this.#maxInFlight * UNRECORDED_FACTOR - this.#unrecorded);
    // Too little room to be worth a round trip: wait for slots to free (they wake the loop).
    if (room <= 0 || (inHand > 0 && room < Math.min(CLAIM_BATCH, this.#maxInFlight))) {
      this.#backlog = true;
      return 0;
    }
    const now = ctx.clock.now();
    const claimed = await inRelaxedCommit(ctx.db, (tx) =>
      claimDueDeliveries(tx, {
        workerId: this.workerId,
        now,
        leaseUntil: new Date(now.getTime() + ctx.config.webhookTimeoutMs + LEASE_MARGIN_MS),
        limit: room,
        perEndpointLimit: this.#perEndpoint,
        inFlight: this.#perEndpointCount,
      }),
    );
    // A full claim means more may be waiting; a short one that the queue is drained, except for
    // endpoints held back at their limit.
    this.#backlog = claimed.length === room;
    if (this.#nextDueAt !== undefined && this.#nextDueAt <= now.getTime()) this.#nextDueAt = undefined;
    const claimedAt = performance.now();
    for (const delivery of claimed) {
      this.#perEndpointCount.set(delivery.endpoint_id, (this.#perEndpointCount.get(delivery.endpoint_id) ?? 0) + 1);
      this.#ready.push({ delivery, claimedAt });
    }
    this.#capped = new Set([...this.#perEndpointCount].filter(([, n]) => n >= this.#perEndpoint).map(([id]) => id));
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
    for (const d of stale) this.#forget(d.endpoint_id);
    const giveBack = releaseLease(ctx.db, this.workerId, stale.map((d) => d.delivery_id)).catch((err: unknown) =>
      ctx.logger.warn({ err }, 'could not hand leases back; they run out on their own'),
    );
    this.#sends.add(giveBack);
    void giveBack.finally(() => this.#sends.delete(giveBack));
  }

  #launch(ctx: AppContext, delivery: ClaimedDelivery): void {
    this.#inFlight.set(delivery.delivery_id, { endpointId: delivery.endpoint_id });
    const send = this.#attempt(ctx, delivery).then(
      (outcome) => this.#queueOutcome(ctx, outcome),
      (err: unknown) => {
        // A bug or an unopenable secret: the lease runs out and another attempt is made later.
        ctx.logger.error({ err, delivery_id: delivery.delivery_id }, 'webhook attempt could not be made');
        this.#release(ctx, delivery.delivery_id);
      },
    );
    this.#sends.add(send);
    void send.finally(() => this.#sends.delete(send));
  }

  async #attempt(ctx: AppContext, delivery: ClaimedDelivery): Promise<Outcome> {
    const attemptedAt = ctx.clock.now();
    let result: FetchResult;
    if (!delivery.enabled) {
      result = { ok: false, reason: 'connection_failed', message: 'endpoint disabled: not sent', durationMs: 0 };
    } else {
      const secrets = this.#signingSecrets(ctx, delivery, attemptedAt);
      result = await this.#http!.fetch({
        url: delivery.url,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': WEBHOOK_USER_AGENT,
          ...signAttempt(secrets, delivery.delivery_id, Math.floor(attemptedAt.getTime() / 1000), delivery.payload),
        },
        body: delivery.payload,
      });
    }
    const decision = decideAfterAttempt({
      attemptCountBefore: delivery.attempt_count,
      succeeded: result.ok,
      now: ctx.clock.now(),
      retryDelaysSeconds: ctx.config.webhookRetryDelaysSeconds,
    });
    ctx.metrics.countDeliveryAttempt(result.ok ? 'delivered' : result.reason, decision.status === 'failed');
    const record: RecordedAttempt = {
      delivery_id: delivery.delivery_id,
      attempt_number: delivery.total_attempts + 1,
      attempted_at: attemptedAt,
      status_code: result.status ?? null,
      duration_ms: result.durationMs,
      error: result.ok ? null : result.message,
      response_excerpt: result.ok || result.status !== undefined ? result.bodyExcerpt : null,
      status: decision.status,
      attempt_count: decision.attemptCount,
      next_attempt_at: decision.nextAttemptAt,
    };
    return { delivery, decision, record };
  }

  #signingSecrets(ctx: AppContext, delivery: ClaimedDelivery, now: Date): string[] {
    const previousLive = delivery.previous_secret_expires_at !== null && delivery.previous_secret_expires_at > now;
    const key = `${delivery.secret_box}|${previousLive ? delivery.previous_secret_box : ''}`;
    let secrets = this.#secrets.get(key);
    if (!secrets) {
      secrets = signingSecretsOf(ctx.secret, delivery, now);
      if (this.#secrets.size >= SECRET_CACHE_SIZE) this.#secrets.clear();
      this.#secrets.set(key, secrets);
    }
    return secrets;
  }

  /**
   * The slot frees as soon as the answer is in: recording happens behind it, in batches. The
   * lease keeps the delivery out of every claim until its outcome is written, and at most
   * MAX_UNRECORDED outcomes may wait, so a slow database slows claiming instead of filling memory.
   */
  #queueOutcome(ctx: AppContext, outcome: Outcome): void {
    this.#pending.push(outcome);
    this.#unrecorded++;
    this.#release(ctx, outcome.delivery.delivery_id);
    if (!this.#flushing) this.#flushing = this.#flush(ctx).finally(() => (this.#flushing = undefined));
  }

  /** Writes every outcome gathered so far; outcomes arriving meanwhile form the next batch. */
  async #flush(ctx: AppContext): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending;
      this.#pending = [];
      const plain = batch.filter((o) => !hasSideEffects(o.delivery, o.decision));
      const eventful = batch.filter((o) => hasSideEffects(o.delivery, o.decision));
      try {
        if (plain.length > 0) {
          await inRelaxedCommit(ctx.db, (tx) => recordAttemptOutcomes(tx, this.workerId, plain.map((o) => o.record), ctx.clock.now()));
        }
        for (const o of eventful) {
          await inTransaction(ctx.db, async (tx) => {
            const recorded = await recordAttemptOutcomes(tx, this.workerId, [o.record], ctx.clock.now());
            if (recorded.length === 1) {
              await applyAttemptEffects(tx, ctx, o.delivery, o.decision, { statusCode: o.record.status_code, error: o.record.error });
            }
          });
        }
      } catch (err) {
        // The leases stay and run out: these deliveries are attempted again (at least once, never lost).
        ctx.logger.error({ err, deliveries: batch.length }, 'recording webhook attempts failed');
      }
      this.#unrecorded -= batch.length;
      for (const o of batch) if (o.record.next_attempt_at) this.#noteDue(o.record.next_attempt_at.getTime());
      if (this.#backlog) this.#latch.set();
    }
  }

  #noteDue(at: number): void {
    if (this.#nextDueAt === undefined || at < this.#nextDueAt) this.#nextDueAt = at;
  }

  #forget(endpointId: string): void {
    const n = (this.#perEndpointCount.get(endpointId) ?? 1) - 1;
    if (n > 0) this.#perEndpointCount.set(endpointId, n);
    else this.#perEndpointCount.delete(endpointId);
  }

  /**
   * Frees a slot and refills it from the ready queue. While work remains, the queue is topped up
   * by claims in groups (or after a 2 ms pause), not one claim per freed slot.
   */
  #release(ctx: AppContext, deliveryId: string): void {
    const slot = this.#inFlight.get(deliveryId);
    if (!slot) return;
    this.#inFlight.delete(deliveryId);
    this.#forget(slot.endpointId);
    this.#launchReady(ctx);
    if (this.#stopped || !(this.#backlog || this.#capped.has(slot.endpointId))) return;
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
