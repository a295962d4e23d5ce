import type { DatabaseSession } from '../../storage/database.ts';
import type { Db } from '../../storage/schema.ts';
import { releaseLeaseUnscoped, releaseSessionLocksUnscoped, SESSION, type DeliveryLease, type LeaseHolder } from '../../storage/webhooks/deliveries.ts';

/**
 * One connection a delivery worker claims on, and the leases it holds there. On PostgreSQL each
 * lane is a session of its own (`DatabaseSession`) leasing with that session's advisory locks
 * (`DeliveryLease`), so a delivery is released on the lane that claimed it; outcomes are recorded
 * on any pooled connection first. Two lanes let two claims overlap. On the embedded database
 * there is one lane, on the shared connection, leasing rows.
 */
/** How long locks to release wait for a claim to carry them before they go in a statement of their own. */
const RELEASE_DELAY_MS = 2;

export class ClaimLane {
  readonly lease: DeliveryLease;
  readonly db: Db;
  readonly #session: DatabaseSession | null;
  readonly #workerId: string;
  /** Delivery id → the session generation it was claimed under: claimed, and its lock not yet released. */
  readonly #held = new Map<string, number>();
  /** Locks to release, gathered for the next claim on this lane (or a statement of their own). */
  #toRelease: string[] = [];
  #releaseTimer: NodeJS.Timeout | undefined;
  #releasing: Promise<void> | undefined;
  #closed = false;
  /** A claim is running on this lane (one at a time: a connection runs one statement at a time). */
  claiming = false;

  constructor(options: { session: DatabaseSession; workerId: string } | { db: Db; workerId: string }) {
    this.#workerId = options.workerId;
    if ('session' in options) {
      this.#session = options.session;
      this.db = options.session.db;
      this.lease = 'session';
    } else {
      this.#session = null;
      this.db = options.db;
      this.lease = 'row';
    }
  }

  /** Who records these deliveries' outcomes. */
  get holder(): LeaseHolder {
    return this.lease === 'row' ? this.#workerId : SESSION;
  }

  get generation(): number {
    return this.#session?.generation ?? 0;
  }

  /** Releases in progress (stop waits for them before the session closes). */
  get busy(): Promise<void> | undefined {
    return this.#releasing;
  }

  hold(deliveryIds: readonly string[], generation: number): void {
    if (this.lease === 'session') for (const id of deliveryIds) this.#held.set(id, generation);
  }

  /** Whether the lease taken for this delivery still stands: a row lease does, a lock only while its connection was not replaced. */
  stillHeld(deliveryId: string): boolean {
    return this.lease === 'row' || this.#held.get(deliveryId) === this.generation;
  }

  /**
   * Done with these deliveries. After their outcomes were written, a row lease has been cleared
   * by the outcome and a lock is to be released here; `handBack` (no outcome was written) also
   * clears a row lease. Locks are released by the next claim on this lane, in its own statement
   * (`takeReleases`), or after RELEASE_DELAY_MS by a statement of their own if no claim came: a
   * release no longer waits in front of a claim on the lane's one connection. A failure is
   * logged by the caller: the lock then ends with the connection, the row lease runs out.
   */
  release(deliveryIds: readonly string[], options: { handBack: boolean }): Promise<void> {
    if (this.lease === 'row') return options.handBack ? releaseLeaseUnscoped(this.db, this.#workerId, deliveryIds) : Promise.resolve();
    // Closed: the session ended, and its locks with it.
    if (this.#closed) return Promise.resolve();
    for (const id of deliveryIds) {
      // A lock taken on an earlier connection went with it: nothing to release.
      if (this.stillHeld(id)) this.#toRelease.push(id);
      else this.#held.delete(id);
    }
    if (this.#toRelease.length > 0) this.#scheduleRelease();
    return Promise.resolve();
  }

  /** The locks the claim about to run here releases first. */
  takeReleases(): string[] {
    clearTimeout(this.#releaseTimer);
    this.#releaseTimer = undefined;
    const ids = this.#toRelease;
    this.#toRelease = [];
    return ids;
  }

  /** The claim that carried these releases completed: they are released (or, if it failed, are to be released again). */
  settleReleases(deliveryIds: readonly string[], ok: boolean): void {
    if (ok) for (const id of deliveryIds) this.#held.delete(id);
    else if (deliveryIds.length > 0) this.release(deliveryIds, { handBack: true }).catch(() => {});
  }

  #scheduleRelease(): void {
    if (this.#releaseTimer || this.#releasing || this.#closed) return;
    this.#releaseTimer = setTimeout(() => {
      this.#releaseTimer = undefined;
      // A claim is out on this lane: the next one will carry them; look again after it.
      if (this.claiming) return this.#scheduleRelease();
      this.#releasing = this.#releaseGathered().finally(() => {
        this.#releasing = undefined;
        if (this.#toRelease.length > 0) this.#scheduleRelease();
      });
    }, RELEASE_DELAY_MS);
  }

  async #releaseGathered(): Promise<void> {
    const ids = this.takeReleases();
    try {
      await releaseSessionLocksUnscoped(this.db, ids);
    } finally {
      for (const id of ids) this.#held.delete(id);
    }
  }

  /** Ends the session: PostgreSQL releases whatever it still holds. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#releaseTimer);
    this.#held.clear();
    await this.#session?.close();
  }
}
