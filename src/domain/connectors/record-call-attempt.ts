import type { Deps } from '../deps.ts';
import type { FetchResult } from '../../net/safe-fetch.ts';
import { recordCallOutcomeUnscoped, setCaseStructuredInput, type ConnectorCallRow } from '../../storage/connector-calls.ts';
import { inTransaction } from '../../storage/unit-of-work.ts';
import { recordCaseEvent } from '../cases/case-events.ts';
import type { Cause } from '../../ports/enqueuers.ts';
import { lockCaseRow, type WriterDeps } from '../cases/case-writer.ts';
import { decideAfterAttempt, type AttemptDecision } from '../retry-schedule.ts';
import type { PreparedCall } from './prepare-call.ts';
import { tenantOfRow } from '../../ports/tenant.ts';

/** Bounded retries (retry-schedule.ts): one attempt more than CONNECTOR_RETRY_DELAYS has delays, then `failed`. */
export type CallDecision = AttemptDecision<'succeeded'>;

/** `/id`, `/data/0/id` (JSON pointer) or `$.data[0].id`. */
export function valueAtPath(document: unknown, path: string): unknown {
  const keys = path.startsWith('/')
    ? path.slice(1).split('/').map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'))
    : path.replace(/^\$\.?/, '').replace(/\[(\d+)\]/g, '.$1').split('.').filter((k) => k !== '');
  let at = document;
  for (const key of keys) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

export type CallAttempt =
  | { prepared: PreparedCall; result: FetchResult }
  | { prepared: null; error: string };

/**
 * Records one attempt under the lease guard and, in the same transaction, its case event
 * (`connector.call_succeeded` / `connector.call_failed`: status code and duration, never a body),
 * the stored response value, and so the queue position (a final failure is an exception).
 * Returns false when the lease was lost (another worker's attempt counts).
 */
export async function recordCallAttempt(
  deps: WriterDeps & Pick<Deps, 'db'>,
  input: { workerId: string; call: ConnectorCallRow; attemptedAt: Date; attempt: CallAttempt; retryDelaysSeconds: readonly number[] },
): Promise<{ recorded: boolean; decision: CallDecision }> {
  const { call, attempt } = input;
  const result = attempt.prepared ? attempt.result : null;
  const succeeded = result?.ok === true;
  const now = deps.clock.now();
  const decision: CallDecision = decideAfterAttempt({ attemptCountBefore: call.attempt_count, succeeded, succeededAs: 'succeeded', now, retryDelaysSeconds: input.retryDelaysSeconds });
  const error = attempt.prepared ? (attempt.result.ok ? null : attempt.result.message) : attempt.error;
  let stored: { as: string; value: unknown } | undefined;
  if (succeeded && attempt.prepared?.storeResponse && result?.ok) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(result.body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    stored = { as: attempt.prepared.storeResponse.as, value: valueAtPath(parsed, attempt.prepared.storeResponse.field) };
  }
  const externalReference = stored?.as === 'external_reference' && stored.value !== undefined && stored.value !== null ? String(stored.value).slice(0, 500) : null;
  const recorded = await inTransaction(deps.db, async (tx) => {
    const caseRow = await lockCaseRow(tx, { tenant: tenantOfRow(call), caseId: call.case_id });
    const row = await recordCallOutcomeUnscoped(
      tx,
      input.workerId,
      {
        callId: call.call_id,
        attemptNumber: call.total_attempts + 1,
        attemptedAt: input.attemptedAt,
        statusCode: result?.status ?? null,
        durationMs: result?.durationMs ?? 0,
        error: error?.slice(0, 500) ?? null,
        status: decision.status,
        attemptCount: decision.attemptCount,
        nextAttemptAt: decision.nextAttemptAt,
        externalReference,
      },
      now,
    );
    if (!row || !caseRow) return false;
    if (stored && stored.as.startsWith('structured_input:') && stored.value !== undefined) {
      await setCaseStructuredInput(tx, tenantOfRow(call), call.case_id, stored.as.slice('structured_input:'.length), stored.value, now);
    }
    const cause: Cause = { traceId: `job:connector_call:${call.call_id}`, idempotencyKey: null };
    const data = {
      node_id: call.node_id,
      connector_key: call.connector_key,
      operation_id: call.operation_id,
      attempt: decision.attemptCount,
      status_code: result?.status ?? null,
      duration_ms: result?.durationMs ?? 0,
    };
    if (succeeded) {
      await recordCaseEvent(tx, deps, { caseRow, eventType: 'connector.call_succeeded', data: { ...data, ...(stored ? { stored_as: stored.as } : {}) }, cause });
    } else {
      await recordCaseEvent(tx, deps, {
        caseRow,
        eventType: 'connector.call_failed',
        data: { ...data, error: error?.slice(0, 500) ?? null, final: decision.status === 'failed', next_attempt_at: decision.nextAttemptAt?.toISOString() ?? null },
        cause,
      });
    }
    return true;
  });
  return { recorded, decision };
}
