import type { DatabaseSession } from '../../storage/database.ts';
import type { Db } from '../../storage/schema.ts';
import type { DeliveryLease, LeaseHolder } from '../../storage/webhooks/deliveries.ts';

/**
 * One connection a delivery worker claims on, and what it holds there. On PostgreSQL each lane is
 * a session of its own (`DatabaseSession`) and leases with that session's advisory locks, so the
 * outcome (or the hand-back) of a delivery must be written on the lane that claimed it: that is
 * what `OutcomeWriter` per lane does. Two lanes let two claims overlap. On the embedded database
 * there is one lane, on the shared connection, leasing rows (`DeliveryLease`).
 */
export class ClaimLane {
  readonly lease: DeliveryLease;
  readonly db: Db;
  readonly #session: DatabaseSession | null;
  readonly #workerId: string;
  /** Delivery id → the session generation it was claimed under: claimed, not yet recorded or handed back. */
  readonly #held = new Map<string, number>();
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

  /** The deliveries this lane's session holds the locks of (the claim must not take them again). */
  get heldIds(): string[] {
    return [...this.#held.keys()];
  }

  get generation(): number {
    return this.#session?.generation ?? 0;
  }

  hold(deliveryIds: readonly string[], generation: number): void {
    for (const id of deliveryIds) this.#held.set(id, generation);
  }

  /** Whether the lock taken for this delivery still stands (its connection was not replaced since). */
  stillHeld(deliveryId: string): boolean {
    return this.#held.get(deliveryId) === this.generation;
  }

  /** Who writes these deliveries' outcomes: the worker id, or this session with the locks it still holds. */
  holderOf(deliveryIds: readonly string[]): LeaseHolder {
    if (this.lease === 'row') return this.#workerId;
    return { session: true, unlock: new Set(deliveryIds.filter((id) => this.stillHeld(id))) };
  }

  /** Recorded or handed back: nothing more to release. */
  forget(deliveryIds: readonly string[]): void {
    for (const id of deliveryIds) this.#held.delete(id);
  }

  /** Ends the session: PostgreSQL releases whatever it still holds. */
  async close(): Promise<void> {
    this.#held.clear();
    await this.#session?.close();
  }
}
