import type { AppContext } from '../../domain/deps.ts';
import { hasSideEffects, recordAttemptOutcome } from '../../domain/webhooks/attempt-outcome.ts';
import { recordAttemptOutcomesUnscoped, type LeaseHolder } from '../../storage/webhooks/deliveries.ts';
import type { AttemptOutcome } from './attempt.ts';

/**
 * Writes attempt outcomes in batches behind the sends: one relaxed-commit statement (no
 * transaction around it) for the plain ones, one transaction each for those with consequences (a final failure emits
 * `v1.webhook.delivery_failed` and a notification). Outcomes arriving while a batch is written
 * form the next batch, on any pooled connection. A failed write leaves the deliveries pending
 * under their leases, which run out (a row lease) or are released a lease's length later (a
 * session lock), so they are attempted again, not at once while the database refuses writes: at
 * least once, never lost.
 */
export class OutcomeWriter {
  readonly #holder: LeaseHolder;
  readonly #onWritten: (batch: readonly AttemptOutcome[], failed: ReadonlySet<string>) => void;
  #pending: AttemptOutcome[] = [];
  #unwritten = 0;
  #flushing: Promise<void> | undefined;

  /** `onWritten` runs after each batch, with the ids that failed to be written (the caller releases leases, notes retry times, wakes claims). */
  constructor(holder: LeaseHolder, onWritten: (batch: readonly AttemptOutcome[], failed: ReadonlySet<string>) => void) {
    this.#holder = holder;
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
    while (this.#pending.length > 0) {
      const batch = this.#pending;
      this.#pending = [];
      const plain = batch.filter((o) => !hasSideEffects(o.delivery, o.decision));
      const eventful = batch.filter((o) => hasSideEffects(o.delivery, o.decision));
      /** What could not be written: still pending, to be attempted again once its lease runs out. */
      const failed = new Set<string>();
      try {
        if (plain.length > 0) {
          await recordAttemptOutcomesUnscoped(ctx.db, this.#holder, plain.map((o) => o.record), ctx.clock.now(), { relaxed: true });
        }
      } catch (err) {
        for (const o of plain) failed.add(o.delivery.delivery_id);
        ctx.logger.error({ err, deliveries: plain.length }, 'recording webhook attempts failed');
      }
      for (const o of eventful) {
        try {
          await recordAttemptOutcome(ctx, { holder: this.#holder, ...o });
        } catch (err) {
          failed.add(o.delivery.delivery_id);
          ctx.logger.error({ err, delivery_id: o.delivery.delivery_id }, 'recording a webhook attempt failed');
        }
      }
      this.#unwritten -= batch.length;
      this.#onWritten(batch, failed);
    }
  }
}
