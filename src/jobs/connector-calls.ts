import { hostname } from 'node:os';
import type { AppContext } from '../app-context.ts';
import { prepareCall, recordCallAttempt, type CallAttempt } from '../domain/connectors/actions.ts';
import { createSafeHttpClient, type OutboundHttp } from '../net/safe-fetch.ts';
import { randomBase62 } from '../ports/ids.ts';
import { claimDueCallsUnscoped, releaseCallLeasesUnscoped, type ConnectorCallRow } from '../storage/connector-calls.ts';
import { onConnectorCallsQueued } from './connector-wake.ts';
import { Latch } from './webhook-wake.ts';
import type { JobTask } from './worker.ts';

export const CONNECTOR_CALL_TASK = 'connector-call';

/** Beyond the attempt deadline, how long a lease lasts: time to record the outcome. */
const LEASE_MARGIN_MS = 5_000;

export interface ConnectorCallOptions {
  /** Calls in flight in this worker at once. */
  maxInFlight?: number;
  /** Safety-net poll when no wake-up comes. */
  pollMs?: number;
  /** The outbound client; default an SSRF-safe client built from the configuration. */
  http?: OutboundHttp;
  workerId?: string;
}

/**
 * The calls of workflow action nodes (issue 14), with webhook delivery's guarantees: claimed
 * with FOR UPDATE SKIP LOCKED under a lease that outlasts the attempt's deadline (so one action
 * is never called twice at once), outcomes written only by the lease holder, bounded retries
 * (CONNECTOR_RETRY_DELAYS), every request through the SSRF-safe client.
 *
 * Simpler than the webhook pipeline: a batch is claimed, sent concurrently and recorded before
 * the next claim. Actions are a few per case, not a fan-out per event, so a batch waiting on one
 * slow customer API (at most CONNECTOR_TIMEOUT_MS) is the accepted cost.
 */
export class ConnectorCallTask implements JobTask {
  readonly name = CONNECTOR_CALL_TASK;
  readonly idleMs = 5;
  readonly workerId: string;
  readonly #options: ConnectorCallOptions;
  readonly #latch = new Latch();
  #http: OutboundHttp | undefined;
  #ownsHttp = false;
  #unsubscribe: (() => void) | undefined;
  #stopped = false;
  #running: Promise<unknown> | undefined;

  constructor(options: ConnectorCallOptions = {}) {
    this.#options = options;
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomBase62(8)}`;
  }

  async run(ctx: AppContext): Promise<number> {
    if (this.#stopped) return 0;
    this.#start(ctx);
    const now = ctx.clock.now();
    const calls = await claimDueCallsUnscoped(ctx.db, {
      workerId: this.workerId,
      now,
      leaseUntil: new Date(now.getTime() + ctx.config.connectorTimeoutMs + LEASE_MARGIN_MS),
      limit: this.#options.maxInFlight ?? 8,
    });
    if (calls.length === 0) {
      await this.#latch.wait(this.#options.pollMs ?? 500);
      return 0;
    }
    if (this.#stopped) {
      await releaseCallLeasesUnscoped(ctx.db, this.workerId, calls.map((c) => c.call_id));
      return 0;
    }
    const batch = Promise.all(calls.map((call) => this.#attempt(ctx, call)));
    this.#running = batch;
    await batch;
    return calls.length;
  }

  /** Wakes the idle wait now (tests, and in-process enqueues). */
  wake(): void {
    this.#latch.set();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#latch.set();
    await this.#running;
    this.#unsubscribe?.();
    if (this.#ownsHttp) await this.#http?.close();
  }

  #start(ctx: AppContext): void {
    if (this.#http) return;
    if (this.#options.http) {
      this.#http = this.#options.http;
    } else {
      this.#http = createSafeHttpClient({ policy: { allowPrivateNetwork: ctx.config.allowPrivateNetwork }, timeoutMs: ctx.config.connectorTimeoutMs });
      this.#ownsHttp = true;
    }
    this.#unsubscribe = onConnectorCallsQueued(ctx.db, () => this.#latch.set());
  }

  async #attempt(ctx: AppContext, call: ConnectorCallRow): Promise<void> {
    const attemptedAt = ctx.clock.now();
    try {
      const prepared = await prepareCall(ctx, call);
      const attempt: CallAttempt = prepared.ok
        ? { prepared: prepared.value, result: await this.#http!.fetch(prepared.value.request) }
        : { prepared: null, error: prepared.message };
      const { decision } = await recordCallAttempt(ctx, { workerId: this.workerId, call, attemptedAt, attempt, retryDelaysSeconds: ctx.config.connectorRetryDelaysSeconds });
      ctx.logger.info(
        { call_id: call.call_id, case_id: call.case_id, node_id: call.node_id, status: decision.status, status_code: attempt.prepared ? (attempt.result.status ?? null) : null },
        'connector call attempted',
      );
    } catch (err) {
      // A bug or broken infrastructure: the lease runs out and the call is attempted again.
      ctx.logger.error({ err, call_id: call.call_id }, 'connector call could not be attempted');
    }
  }
}

export function connectorCallTask(options?: ConnectorCallOptions): ConnectorCallTask {
  return new ConnectorCallTask(options);
}
