import { hostname } from 'node:os';
import type { AppContext } from '../domain/deps.ts';
import { randomBase62 } from '../ports/ids.ts';
import type { WakeTopic } from '../ports/wake.ts';
import { Latch } from './latch.ts';
import type { JobTask } from './worker.ts';

/**
 * One pipeline for leased work (as graphile-worker has one queue): claim → run → record under a
 * lease. Every kind claims with FOR UPDATE SKIP LOCKED in its own storage module, setting
 * `locked_by` to this worker and `locked_until` to the lease below; every later write of the item
 * is guarded by `locked_by`, so an outcome is recorded only by the worker that still holds the
 * lease. A worker that dies mid-run leaves its lease to run out, and the item is claimed again:
 * at least once, never lost. Because the lease outlasts the longest run, one item is never run
 * twice at once.
 *
 * What each kind specialises:
 * - connector calls (`connector-calls.ts`): a batch run concurrently, each attempt recorded with
 *   its case event; woken in-process;
 * - case jobs (`case-jobs.ts`): a batch run one by one, handlers per job kind, attempts counted
 *   at claim, give-up handlers; no wake-up (the Worker's idle poll);
 * - webhook deliveries (`webhook-delivery.ts`): its own scheduling inside the same skeleton:
 *   per-endpoint slots, leased-ahead work, batched outcome writes, LISTEN as well as in-process
 *   wake-ups.
 */

/** Beyond the longest run, how long a lease lasts: time to record the outcome. */
export const LEASE_MARGIN_MS = 5_000;

/** Who holds a lease: host, process and a random part (two workers in one process differ). */
export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomBase62(8)}`;
}

/**
 * Whether an item claimed at `claimedAt` (performance.now()) waited too long in hand to be started:
 * past half the margin its lease might run out mid-run and let another worker take it at the same
 * time. Such an item is handed back, not run.
 */
export function tooLateToStart(claimedAt: number): boolean {
  return performance.now() - claimedAt > LEASE_MARGIN_MS / 2;
}

/** What a claim asks its storage function for. */
export interface LeaseRequest {
  workerId: string;
  now: Date;
  leaseUntil: Date;
  limit: number;
}

export interface LeasedTaskOptions {
  name: string;
  /** Safety-net poll when no wake-up comes (and the wait after a failed claim). */
  pollMs: number;
  /** The Worker's pause after an idle run. */
  idleMs?: number;
  /** Woken in-process on this topic; without one the task does not wait itself (the Worker's idle poll). */
  wakeOn?: WakeTopic;
  workerId?: string;
}

/**
 * The skeleton every leased kind runs in: one worker id, leases of `runMs` + LEASE_MARGIN_MS,
 * a latch woken by the wake port (and whatever `subscribe` adds), the idle wait, and a stop that
 * lets started work be recorded before the wake-ups close. A kind says how it claims and runs
 * (`claimAndRun`) and what it has started (`settle`).
 */
export abstract class LeasedTask implements JobTask {
  readonly name: string;
  readonly idleMs: number;
  readonly workerId: string;
  protected readonly pollMs: number;
  protected readonly latch = new Latch();
  protected stopped = false;
  readonly #wakeOn: WakeTopic | undefined;
  #started = false;
  #unsubscribe: (() => Promise<void> | void) | undefined;

  constructor(options: LeasedTaskOptions) {
    this.name = options.name;
    this.pollMs = options.pollMs;
    this.idleMs = options.idleMs ?? 5;
    this.#wakeOn = options.wakeOn;
    this.workerId = options.workerId ?? newWorkerId();
  }

  /** The longest one item may run: the lease is this plus LEASE_MARGIN_MS. */
  protected abstract runMs(ctx: AppContext): number;
  /** Claims what this worker can take now and starts (or runs) it; returns how many. */
  protected abstract claimAndRun(ctx: AppContext): Promise<number>;
  /** Resolves when everything started has run and been recorded. */
  protected abstract settle(): Promise<void>;

  /** Every way this task is woken; returns how to stop them. The in-process topic by default. */
  protected subscribe(ctx: AppContext, wake: () => void): () => Promise<void> | void {
    return this.#wakeOn ? ctx.wake.subscribe(this.#wakeOn, wake) : () => {};
  }

  /** How long an idle run waits for a wake-up. */
  protected waitMs(_ctx: AppContext): number {
    return this.pollMs;
  }

  protected lease(ctx: AppContext, limit: number): LeaseRequest {
    const now = ctx.clock.now();
    return { workerId: this.workerId, now, leaseUntil: new Date(now.getTime() + this.runMs(ctx) + LEASE_MARGIN_MS), limit };
  }

  /**
   * The Worker's loop body. The Worker cannot be woken from outside its tasks, so a task with a
   * wake topic waits here, on its latch, when there was nothing to claim.
   */
  async run(ctx: AppContext): Promise<number> {
    if (this.stopped) return 0;
    this.#start(ctx);
    try {
      let claimed = await this.claimAndRun(ctx);
      if (claimed === 0 && this.#wakeOn) {
        await this.latch.wait(this.waitMs(ctx));
        if (this.stopped) return 0;
        claimed = await this.claimAndRun(ctx);
      }
      return claimed;
    } catch (err) {
      ctx.logger.error({ err, task: this.name }, 'leased task claim failed');
      await this.latch.wait(this.pollMs);
      return 0;
    }
  }

  /** Wakes this task's wait now (tests, and callers that know work was queued in-process). */
  wake(): void {
    this.latch.set();
  }

  /** Stops claiming, lets what was started run and be recorded, then closes the wake-ups. Call before closing the database. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.latch.set();
    await this.settle();
    await this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  #start(ctx: AppContext): void {
    if (this.#started) return;
    this.#started = true;
    this.#unsubscribe = this.subscribe(ctx, () => this.latch.set());
  }
}

/** What a kind run in batches specialises: its claim, its run, and its record under the lease. */
export interface LeasedKind<Item, Outcome> {
  /** The longest one item may run. */
  runMs(ctx: AppContext): number;
  claim(ctx: AppContext, lease: LeaseRequest): Promise<Item[]>;
  /** Hands leases back unrun (the task stopped after claiming); without it the batch runs anyway. */
  release?(ctx: AppContext, workerId: string, items: readonly Item[]): Promise<void>;
  /** The work itself. Expected failures are outcomes; a throw is a bug or broken infrastructure. */
  run(ctx: AppContext, item: Item): Promise<Outcome>;
  /** Writes the outcome; every write is guarded by `locked_by = workerId`. */
  record(ctx: AppContext, workerId: string, item: Item, outcome: Outcome): Promise<void>;
  /** The item's ids, for the log. */
  describe(item: Item): Record<string, unknown>;
}

export interface BatchOptions extends LeasedTaskOptions {
  /** Items claimed at once. */
  batch: number;
  /** Run the batch's items side by side (calls waiting on remote APIs) or one by one (CPU-heavy jobs). */
  concurrent: boolean;
}

/**
 * Claims a batch, runs it and records each outcome before the next claim. A run or record that
 * throws leaves its lease to run out, so the item is tried again.
 */
export class BatchLeasedTask<Item, Outcome> extends LeasedTask {
  readonly #kind: LeasedKind<Item, Outcome>;
  readonly #options: BatchOptions;
  #running: Promise<unknown> | undefined;

  constructor(kind: LeasedKind<Item, Outcome>, options: BatchOptions) {
    super(options);
    this.#kind = kind;
    this.#options = options;
  }

  protected runMs(ctx: AppContext): number {
    return this.#kind.runMs(ctx);
  }

  protected async claimAndRun(ctx: AppContext): Promise<number> {
    const items = await this.#kind.claim(ctx, this.lease(ctx, this.#options.batch));
    if (items.length === 0) return 0;
    if (this.stopped && this.#kind.release) {
      await this.#kind.release(ctx, this.workerId, items);
      return 0;
    }
    const batch = this.#options.concurrent ? Promise.all(items.map((item) => this.#runOne(ctx, item))) : this.#runInTurn(ctx, items);
    this.#running = batch;
    await batch;
    return items.length;
  }

  protected async settle(): Promise<void> {
    await this.#running;
  }

  async #runInTurn(ctx: AppContext, items: readonly Item[]): Promise<void> {
    for (const item of items) await this.#runOne(ctx, item);
  }

  async #runOne(ctx: AppContext, item: Item): Promise<void> {
    try {
      const outcome = await this.#kind.run(ctx, item);
      await this.#kind.record(ctx, this.workerId, item, outcome);
    } catch (err) {
      ctx.logger.error({ err, task: this.name, ...this.#kind.describe(item) }, 'leased work could not be run or recorded; its lease runs out and it is tried again');
    }
  }
}
