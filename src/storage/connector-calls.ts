import { sql, type Selectable } from 'kysely';
import { toJsonb } from './json.ts';
import type { Executor, Tx } from './schema.ts';
import type { ConnectorCallStatus, ConnectorCallsTable } from './tables/connectors.ts';
import type { Tenant } from '../ports/tenant.ts';

export type ConnectorCallRow = Selectable<ConnectorCallsTable>;

/**
 * Queues the call of one action node of a case. At most one call per (case, node) ever exists:
 * a trigger that fires again (a replayed event) adds nothing. Returns whether a row was added.
 */
export async function insertConnectorCall(
  tx: Executor,
  call: Tenant & { callId: string; caseId: string; nodeId: string; connectorKey: string; operationId: string; trigger: Record<string, unknown>; now: Date },
): Promise<boolean> {
  const result = await tx
    .insertInto('connector_calls')
    .values({
      call_id: call.callId,
      org_id: call.orgId,
      environment: call.environment,
      case_id: call.caseId,
      node_id: call.nodeId,
      connector_key: call.connectorKey,
      operation_id: call.operationId,
      request: toJsonb(call.trigger),
      status: 'pending',
      attempt_count: 0,
      total_attempts: 0,
      next_attempt_at: call.now,
      locked_by: null,
      locked_until: null,
      last_attempt_at: null,
      last_status_code: null,
      last_duration_ms: null,
      last_error: null,
      external_reference: null,
      succeeded_at: null,
      failed_at: null,
      created_at: call.now,
      updated_at: call.now,
    })
    .onConflict((oc) => oc.columns(['case_id', 'node_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/**
 * Leases up to `limit` due calls, earliest first. SKIP LOCKED keeps concurrent claimers from
 * taking one call twice; the lease then keeps it out of every claim until its outcome is written
 * or the lease runs out. A lease outlasts the attempt's deadline, so a call is never made twice
 * at once: another worker can only take it after the first attempt's deadline has passed.
 */
export async function claimDueCallsUnscoped(db: Executor, claim: { workerId: string; now: Date; leaseUntil: Date; limit: number }): Promise<ConnectorCallRow[]> {
  if (claim.limit <= 0) return [];
  const result = await sql<ConnectorCallRow>`
    with picked as (
      select call_id from connector_calls
      where status in ('pending', 'retry_scheduled')
        and next_attempt_at <= ${claim.now}
        and (locked_until is null or locked_until <= ${claim.now})
      order by next_attempt_at, call_id
      limit ${claim.limit}
      for update skip locked
    )
    update connector_calls c
    set locked_by = ${claim.workerId}, locked_until = ${claim.leaseUntil}
    from picked
    where c.call_id = picked.call_id
    returning c.*`.execute(db);
  return result.rows;
}

export interface CallOutcome {
  callId: string;
  /** total_attempts + 1 at claim time: the guard that nobody recorded an attempt since. */
  attemptNumber: number;
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  status: ConnectorCallStatus;
  attemptCount: number;
  nextAttemptAt: Date | null;
  externalReference: string | null;
}

/**
 * Writes an attempt's outcome only while `workerId` still holds the lease and no attempt was
 * recorded since the claim; a late outcome after a takeover is a no-op. Returns the row written.
 */
export async function recordCallOutcomeUnscoped(tx: Tx, workerId: string, o: CallOutcome, now: Date): Promise<ConnectorCallRow | undefined> {
  return tx
    .updateTable('connector_calls')
    .set((eb) => ({
      status: o.status,
      attempt_count: o.attemptCount,
      total_attempts: o.attemptNumber,
      next_attempt_at: o.nextAttemptAt,
      locked_by: null,
      locked_until: null,
      last_attempt_at: o.attemptedAt,
      last_status_code: o.statusCode,
      last_duration_ms: o.durationMs,
      last_error: o.error,
      external_reference: o.externalReference ?? eb.ref('external_reference'),
      succeeded_at: o.status === 'succeeded' ? now : null,
      failed_at: o.status === 'failed' ? now : null,
      updated_at: now,
    }))
    .where('call_id', '=', o.callId)
    .where('locked_by', '=', workerId)
    .where('total_attempts', '=', o.attemptNumber - 1)
    .returningAll()
    .executeTakeFirst();
}

/** Gives leases back without an attempt (a worker stopping). */
export async function releaseCallLeasesUnscoped(db: Executor, workerId: string, callIds: readonly string[]): Promise<void> {
  if (callIds.length === 0) return;
  await db.updateTable('connector_calls').set({ locked_by: null, locked_until: null }).where('call_id', 'in', callIds).where('locked_by', '=', workerId).execute();
}

export async function lockCallOfCase(tx: Tx, scope: Tenant, caseId: string, nodeId: string): Promise<ConnectorCallRow | undefined> {
  return tx
    .selectFrom('connector_calls')
    .selectAll()
    .where('org_id', '=', scope.orgId)
    .where('environment', '=', scope.environment)
    .where('case_id', '=', caseId)
    .where('node_id', '=', nodeId)
    .forUpdate()
    .executeTakeFirst();
}

/** A failed call goes back to the queue with a fresh budget of attempts. */
export async function requeueFailedCall(tx: Executor, tenant: Tenant, callId: string, now: Date): Promise<ConnectorCallRow | undefined> {
  return tx
    .updateTable('connector_calls')
    .set({ status: 'pending', attempt_count: 0, next_attempt_at: now, failed_at: null, locked_by: null, locked_until: null, updated_at: now })
    .where('call_id', '=', callId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('status', '=', 'failed')
    .returningAll()
    .executeTakeFirst();
}

/** `store_response … as structured_input:<key>` writes the value into the case's structured inputs. */
export async function setCaseStructuredInput(tx: Executor, tenant: Tenant, caseId: string, key: string, value: unknown, now: Date): Promise<void> {
  await sql`update cases set structured_inputs = jsonb_set(structured_inputs, ${sql.val([key])}::text[], ${toJsonb(value ?? null)}::jsonb, true), updated_at = ${now}
    where case_id = ${caseId} and org_id = ${tenant.orgId} and environment = ${tenant.environment}`.execute(tx);
}
