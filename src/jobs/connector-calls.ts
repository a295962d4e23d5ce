import type { AppContext } from '../domain/deps.ts';
import { prepareCall } from '../domain/connectors/prepare-call.ts';
import { recordCallAttempt, type CallAttempt } from '../domain/connectors/record-call-attempt.ts';
import { claimDueCallsUnscoped, releaseCallLeasesUnscoped, type ConnectorCallRow } from '../storage/connector-calls.ts';
import { BatchLeasedTask, type LeasedKind } from './leased-tasks.ts';

export const CONNECTOR_CALL_TASK = 'connector-call';

export interface ConnectorCallOptions {
  /** Calls in flight in this worker at once. */
  maxInFlight?: number;
  /** Safety-net poll when no wake-up comes. */
  pollMs?: number;
  workerId?: string;
}

/**
 * The calls of workflow action nodes (issue 14) in the leased pipeline (`leased-tasks.ts`): a
 * lease that outlasts the attempt's deadline (so one action is never called twice at once),
 * outcomes written only by the lease holder, bounded retries (CONNECTOR_RETRY_DELAYS), every
 * request through the app context's connectors client.
 *
 * A batch is claimed, sent concurrently and recorded before the next claim. Actions are a few per
 * case, not a fan-out per event, so a batch waiting on one slow customer API (at most
 * CONNECTOR_TIMEOUT_MS) is the accepted cost.
 */
const connectorCalls: LeasedKind<ConnectorCallRow, { attemptedAt: Date; attempt: CallAttempt }> = {
  runMs: (ctx) => ctx.config.connectorTimeoutMs,
  claim: (ctx, lease) => claimDueCallsUnscoped(ctx.db, lease),
  release: (ctx, workerId, calls) => releaseCallLeasesUnscoped(ctx.db, workerId, calls.map((c) => c.call_id)),
  async run(ctx, call) {
    const attemptedAt = ctx.clock.now();
    const prepared = await prepareCall(ctx, call);
    const attempt: CallAttempt = prepared.ok
      ? { prepared: prepared.value, result: await ctx.outbound.connectors.fetch(prepared.value.request) }
      : { prepared: null, error: prepared.message };
    return { attemptedAt, attempt };
  },
  async record(ctx, workerId, call, { attemptedAt, attempt }) {
    const { decision } = await recordCallAttempt(ctx, { workerId, call, attemptedAt, attempt, retryDelaysSeconds: ctx.config.connectorRetryDelaysSeconds });
    ctx.logger.info(
      { call_id: call.call_id, case_id: call.case_id, node_id: call.node_id, status: decision.status, status_code: attempt.prepared ? (attempt.result.status ?? null) : null },
      'connector call attempted',
    );
  },
  describe: (call) => ({ call_id: call.call_id, case_id: call.case_id }),
};

export function connectorCallTask(options: ConnectorCallOptions = {}): BatchLeasedTask<ConnectorCallRow, { attemptedAt: Date; attempt: CallAttempt }> {
  return new BatchLeasedTask(connectorCalls, {
    name: CONNECTOR_CALL_TASK,
    pollMs: options.pollMs ?? 500,
    wakeOn: 'connector-calls',
    batch: options.maxInFlight ?? 8,
    concurrent: true,
    ...(options.workerId ? { workerId: options.workerId } : {}),
  });
}
