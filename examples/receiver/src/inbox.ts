import { DossierError, type Dossier } from '@dossier/client';
import type { FastifyBaseLogger } from 'fastify';
import type { ReceiverStore, StoredDelivery } from './store.ts';

/**
 * Works through the stored deliveries after the 2xx has gone back. The acknowledgement cannot be
 * sent from inside the webhook request: the service accepts it only once the delivery is recorded
 * as delivered, which happens when our 2xx arrives. So the handler stores and answers, and this
 * loop reads the case and the package, then acknowledges — retrying with backoff, which also
 * covers the moment between our answer and the service recording it
 * (`webhook_delivery_not_delivered`).
 */

const RETRY_DELAYS_MS = [250, 1_000, 5_000, 30_000, 120_000, 600_000];

export interface InboxDeps {
  dossier: Dossier;
  store: ReceiverStore;
  log: FastifyBaseLogger;
  now?: () => Date;
}

export class Inbox {
  readonly #deps: InboxDeps;
  readonly #pollMs: number;
  #timer: ReturnType<typeof setInterval> | undefined;
  #running: Promise<void> | undefined;
  #again = false;

  constructor(deps: InboxDeps, pollMs: number) {
    this.#deps = deps;
    this.#pollMs = pollMs;
  }

  start(): void {
    this.#timer = setInterval(() => this.wake(), this.#pollMs);
    this.wake();
  }

  /** Runs the due work now (or right after the run in progress). */
  wake(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#drain().finally(() => {
      this.#running = undefined;
      if (this.#again) {
        this.#again = false;
        this.wake();
      }
    });
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }

  async #drain(): Promise<void> {
    const now = () => this.#deps.now?.() ?? new Date();
    for (const delivery of this.#deps.store.dueDeliveries(now(), 20)) {
      try {
        await this.#handOff(delivery, now);
      } catch (error) {
        const delay = RETRY_DELAYS_MS[Math.min(delivery.attempts, RETRY_DELAYS_MS.length - 1)]!;
        const message = error instanceof DossierError ? `${error.code}: ${error.message}` : String(error);
        this.#deps.store.scheduleRetry(delivery.delivery_id, new Date(now().getTime() + delay), message);
        this.#deps.log.info({ delivery_id: delivery.delivery_id, retry_in_ms: delay, error: message }, 'handoff not done yet');
      }
    }
  }

  /** A completed case: read what the service holds now, keep it, and acknowledge the handoff. */
  async #handOff(delivery: StoredDelivery, now: () => Date): Promise<void> {
    const { dossier, store, log } = this.#deps;
    const caseId = delivery.case_id!;
    const caseRecord = await dossier.cases.retrieve(caseId);
    const pkg = await dossier.cases.package(caseId);
    // Our own id for the receipt: acknowledging again after a crash replays the first answer.
    const acknowledgement = await dossier.webhooks.deliveries.ack(delivery.delivery_id, { acknowledgement_id: `receiver-${delivery.delivery_id}` });
    store.saveHandoff({ deliveryId: delivery.delivery_id, caseRecord, pkg, acknowledgement, now: now() });
    log.info({ delivery_id: delivery.delivery_id, case_id: caseId, case_status: pkg.case_status, handoff_state: acknowledgement.handoff_state }, 'handoff acknowledged');
  }
}
