import type { AppContext } from '../../domain/deps.ts';
import { hasSideEffects, recordAttemptOutcome } from '../../domain/webhooks/attempt-outcome.ts';
import { recordAttemptOutcomesUnscoped, releaseLeaseUnscoped } from '../../storage/webhooks/deliveries.ts';
import type { AttemptOutcome } from './attempt.ts';
import type { ClaimLane } from './claim-lane.ts';

/**
 * Writes attempt outcomes in batches behind the sends, on the lane that claimed them (its session
 * holds their locks): one relaxed-commit statement (no transaction around it) for the plain ones,
 * one transaction each for those with consequences (a final failure emits
 * `v1.webhook.delivery_failed` and a notification). Outcomes arriving while a batch is written
 * form the next batch. A failed write hands the leases back (or, if that fails too, leaves them to
 * the connection's end or the row lease's expiry), so those deliveries are attempted again: at
 * least once, never lost.
 */
export class OutcomeWriter {
  readonly #lane: ClaimLane;
  readonly #onWritten: (batch: readonly AttemptOutcome[]) => void;
  #pending: AttemptOutcome[] = [];
  #unwritten = 0;
  #flushing: Promise<void> | undefined;

  /** `onWritten` runs after each batch, written or not (the caller notes retry times, wakes claims). */
  constructor(lane: ClaimLane, onWritten: (batch: readonly AttemptOutcome[]) => void) {
    this.#lane = lane;
    this.#onWritten = onWritten;
  }

  /** Outcomes waiting to be written, or being written. */
  get unwritten(): number {
    return this.#unwritten;
  }

  get busy(): Promise<void> | undefined {
    return this.#flushing;
  }

  add(ctx: AppContext, outcome: AttemptOutcome): void {
    this.#pending.push(outcome);
    this.#unwritten++;
    if (!this.#flushing) this.#flushing = this.#flush(ctx).finally(() => (this.#flushing = undefined));
  }

  async #flush(ctx: AppContext): Promise<void> {
    const lane = this.#lane;
    while (this.#pending.length > 0) {
      const batch = this.#pending;
      this.#pending = [];
      const ids = batch.map((o) => o.delivery.delivery_id);
      const plain = batch.filter((o) => !hasSideEffects(o.delivery, o.decision));
      const eventful = batch.filter((o) => hasSideEffects(o.delivery, o.decision));
      try {
        if (plain.length > 0) {
          const holder = lane.holderOf(plain.map((o) => o.delivery.delivery_id));
          await recordAttemptOutcomesUnscoped(lane.db, holder, plain.map((o) => o.record), ctx.clock.now(), { relaxed: true });
          lane.forget(plain.map((o) => o.delivery.delivery_id));
        }
        for (const o of eventful) {
          await recordAttemptOutcome({ ...ctx, db: lane.db }, { holder: lane.holderOf([o.delivery.delivery_id]), ...o });
          lane.forget([o.delivery.delivery_id]);
        }
      } catch (err) {
        ctx.logger.error({ err, deliveries: batch.length }, 'recording webhook attempts failed');
        const left = ids.filter((id) => lane.heldIds.includes(id));
        await releaseLeaseUnscoped(lane.db, lane.holderOf(left), left).catch((releaseErr: unknown) =>
          ctx.logger.warn({ err: releaseErr }, 'could not hand leases back; they end with the connection or run out'),
        );
        lane.forget(left);
      }
      this.#unwritten -= batch.length;
      this.#onWritten(batch);
    }
  }
}
