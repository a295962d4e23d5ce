import { sql, type Insertable, type Selectable } from 'kysely';
import type { Environment } from '../../config.ts';
import { PREPARED } from '../database.ts';
import type { Executor, Tx } from '../schema.ts';
import type { DeliveryStatus, EndpointKind, WebhookDeliveriesTable, WebhookDeliveryAttemptsTable } from '../tables/webhooks.ts';
import type { Tenant } from '../../ports/tenant.ts';

export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookDeliveryAttemptsTable>;

/**
 * Makes the statement it is joined into commit without waiting for its WAL to reach disk. Only for
 * the delivery engine's leases and plain attempt outcomes, each one statement run on its own (its
 * own implicit transaction, which `set_config(…, true)` is local to): losing such a commit in a
 * database crash costs a repeated attempt once the lease runs out (delivery is at least once
 * anyway), never a delivery. Outcomes with consequences (a failed delivery's follow-ups, a
 * handoff) commit normally. Measured (bench/webhooks-fanout.ts): the setting inside the statement
 * rather than `BEGIN; SET LOCAL …; statement; COMMIT` takes a claim or an outcome batch from four
 * round trips to one.
 */
const relaxedCommit = sql`(select set_config('synchronous_commit', 'off', true) as synchronous_commit)`;

/** The NOTIFY channel that tells delivery workers, in every process, that deliveries were queued. */
export const DELIVERY_CHANNEL = 'dossier_webhook_deliveries';

export async function insertDeliveries(tx: Executor, rows: Insertable<WebhookDeliveriesTable>[]): Promise<void> {
  if (rows.length > 0) await tx.insertInto('webhook_deliveries').values(rows).execute();
}

/** Delivered with the commit, to every listening process; nothing is sent if the transaction rolls back. */
export async function notifyDeliveriesQueued(tx: Executor): Promise<void> {
  await sql`select pg_notify(${DELIVERY_CHANNEL}, '')`.execute(tx);
}

/** A leased delivery with what sending it needs. */
export interface ClaimedDelivery {
  delivery_id: string;
  org_id: string;
  environment: Environment;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  case_id: string | null;
  payload: string;
  attempt_count: number;
  total_attempts: number;
  url: string;
  /** A `listener` delivery is never POSTed by the worker: the `dossier listen` stream hands it to the CLI. */
  kind: EndpointKind;
  enabled: boolean;
  secret_box: string;
  previous_secret_box: string | null;
  previous_secret_expires_at: Date | null;
}

export interface ClaimRequest {
  workerId: string;
  now: Date;
  leaseUntil: Date;
  limit: number;
  /** Most deliveries one endpoint may have in flight in this worker. */
  perEndpointLimit: number;
  /** This worker's deliveries in flight, per endpoint: their slots are not free. */
  inFlight: ReadonlyMap<string, number>;
  /**
   * One endpoint only: a `dossier listen` stream claiming its listener's deliveries. Without it
   * (the delivery worker), a listener with a stream connected is skipped: the stream takes them.
   */
  endpointId?: string;
}

/**
 * Leases up to `limit` due deliveries, fairly: each endpoint offers at most its free slots (its
 * earliest due ones), and the earliest of those win. So a dead endpoint with a thousand due
 * deliveries takes `perEndpointLimit` slots, never all of them, and cannot push the others back.
 *
 * The lateral walk costs one index probe per endpoint (webhook_deliveries_due). The candidates are
 * locked with SKIP LOCKED and re-checked under the lock, so concurrent claimers never lease one
 * delivery twice; the lease (`locked_by`, `locked_until`) then keeps it out of every claim until
 * the outcome is recorded or the lease runs out (a worker that died mid-send). One statement, run
 * on its own and committed relaxed (see `relaxedCommit`): not for use inside a transaction.
 */
export async function claimDueDeliveriesUnscoped(db: Executor, claim: ClaimRequest): Promise<ClaimedDelivery[]> {
  if (claim.limit <= 0) return [];
  const busyIds = [...claim.inFlight.keys()];
  const busyCounts = busyIds.map((id) => claim.inFlight.get(id)!);
  // Prepared (database.ts): planning was 0.9 ms of the claim's 4.6 ms under the fan-out load,
  // and claims run one at a time per worker, so their round trip bounds its rate (issue 16).
  const result = await sql<ClaimedDelivery>`${sql.raw(PREPARED)}
    with picked as (
      select due.delivery_id
      from webhook_endpoints e
      left join unnest(${busyIds}::text[], ${busyCounts}::int[]) as busy(endpoint_id, n) on busy.endpoint_id = e.endpoint_id
      cross join lateral (
        select d.delivery_id, d.next_attempt_at
        from webhook_deliveries d
        where d.endpoint_id = e.endpoint_id
          and d.status in ('pending', 'retry_scheduled')
          and d.next_attempt_at <= ${claim.now}
          and (d.locked_until is null or d.locked_until <= ${claim.now})
        order by d.next_attempt_at, d.delivery_id
        limit greatest(${claim.perEndpointLimit}::int - coalesce(busy.n, 0), 0)
      ) due
      where ${
        claim.endpointId !== undefined
          ? sql`e.endpoint_id = ${claim.endpointId}`
          : sql`(e.kind = 'url' or e.listener_connected_until is null or e.listener_connected_until <= ${claim.now})`
      }
      order by due.next_attempt_at, due.delivery_id
      limit ${claim.limit}
    ),
    locked as (
      select d.delivery_id
      from webhook_deliveries d
      where d.delivery_id in (select delivery_id from picked)
        and d.status in ('pending', 'retry_scheduled')
        and d.next_attempt_at <= ${claim.now}
        and (d.locked_until is null or d.locked_until <= ${claim.now})
      for update skip locked
    )
    update webhook_deliveries d
    set locked_by = ${claim.workerId}, locked_until = ${claim.leaseUntil}
    from locked, webhook_endpoints e, ${relaxedCommit} relaxed
    where d.delivery_id = locked.delivery_id and e.endpoint_id = d.endpoint_id
    returning d.delivery_id, d.org_id, d.environment, d.endpoint_id, d.event_id, d.event_type, d.case_id, d.payload,
      d.attempt_count, d.total_attempts, e.url, e.kind, e.enabled, e.secret_box, e.previous_secret_box, e.previous_secret_expires_at`.execute(db);
  return result.rows;
}

/**
 * A delivery still leased by `lockedBy`, with what recording its attempt needs: how a
 * `dossier listen` result finds the delivery it reports on. Undefined once the lease was
 * recorded, handed back, or taken over after running out.
 */
export async function findLeasedDelivery(db: Executor, tenant: Tenant, query: { deliveryId: string; lockedBy: string }): Promise<ClaimedDelivery | undefined> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.endpoint_id', 'd.endpoint_id')
    .select([
      'd.delivery_id',
      'd.org_id',
      'd.environment',
      'd.endpoint_id',
      'd.event_id',
      'd.event_type',
      'd.case_id',
      'd.payload',
      'd.attempt_count',
      'd.total_attempts',
      'e.url',
      'e.kind',
      'e.enabled',
      'e.secret_box',
      'e.previous_secret_box',
      'e.previous_secret_expires_at',
    ])
    .where('d.delivery_id', '=', query.deliveryId)
    .where('d.org_id', '=', tenant.orgId)
    .where('d.environment', '=', tenant.environment)
    .where('d.locked_by', '=', query.lockedBy)
    .where('d.status', 'in', ['pending', 'retry_scheduled'])
    .executeTakeFirst();
}

/**
 * A listener's waiting retries, due now: when `dossier listen` connects, what failed while no
 * stream was open is sent at once rather than at its scheduled time. Returns how many.
 */
export async function bringRetriesForward(db: Executor, tenant: Tenant, endpointId: string, now: Date): Promise<number> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now, updated_at: now })
    .where('endpoint_id', '=', endpointId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('status', '=', 'retry_scheduled')
    .where('next_attempt_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** One attempt's outcome and the delivery state it leads to (decided in domain/webhooks/attempt-outcome.ts). */
export interface RecordedAttempt {
  delivery_id: string;
  /** total_attempts + 1 at claim time: the guard that nobody recorded an attempt since. */
  attempt_number: number;
  attempted_at: Date;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: Date | null;
}

/**
 * Records outcomes in one statement, each guarded by ownership: only a delivery still leased by
 * `workerId`, with no attempt recorded since the claim, is updated, and only then is its attempt
 * row written. A lease that ran out and was taken over makes the late outcome a no-op (the other
 * worker's attempt counts). Returns the ids that were recorded.
 *
 * `relaxed`: the plain outcomes' batch, one statement run on its own and committed relaxed (see
 * `relaxedCommit`); never inside a transaction that must commit normally.
 */
export async function recordAttemptOutcomesUnscoped(
  db: Executor,
  workerId: string,
  outcomes: readonly RecordedAttempt[],
  now: Date,
  options: { relaxed?: boolean } = {},
): Promise<string[]> {
  if (outcomes.length === 0) return [];
  const input = JSON.stringify(outcomes);
  const result = await sql<{ delivery_id: string }>`${sql.raw(PREPARED)}
    with input as (
      select * from jsonb_to_recordset(${input}::jsonb) as i(
        delivery_id text, attempt_number int, attempted_at timestamptz, status_code int, duration_ms int,
        error text, response_excerpt text, status text, attempt_count int, next_attempt_at timestamptz)
    ),
    updated as (
      update webhook_deliveries d
      set status = i.status,
          attempt_count = i.attempt_count,
          total_attempts = i.attempt_number,
          next_attempt_at = i.next_attempt_at,
          locked_by = null,
          locked_until = null,
          last_attempt_at = i.attempted_at,
          last_status_code = i.status_code,
          last_error = i.error,
          delivered_at = case when i.status = 'delivered' then coalesce(d.delivered_at, ${now}) else d.delivered_at end,
          failed_at = case when i.status = 'failed' then ${now}::timestamptz else null end,
          updated_at = ${now}
      from input i${options.relaxed ? sql`, ${relaxedCommit} relaxed` : sql``}
      where d.delivery_id = i.delivery_id and d.locked_by = ${workerId} and d.total_attempts = i.attempt_number - 1
      returning d.delivery_id, d.org_id, d.environment
    ),
    attempts as (
      insert into webhook_delivery_attempts
        (delivery_id, attempt_number, org_id, environment, attempted_at, status_code, duration_ms, error, response_excerpt)
      select i.delivery_id, i.attempt_number, u.org_id, u.environment, i.attempted_at, i.status_code, i.duration_ms, i.error, i.response_excerpt
      from input i join updated u on u.delivery_id = i.delivery_id
    )
    select delivery_id from updated`.execute(db);
  return result.rows.map((r) => r.delivery_id);
}

/** Gives a lease back without recording an attempt (a worker shutting down before it could send). */
export async function releaseLeaseUnscoped(db: Executor, workerId: string, deliveryIds: readonly string[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ locked_by: null, locked_until: null })
    .where('delivery_id', 'in', deliveryIds)
    .where('locked_by', '=', workerId)
    .execute();
}

export async function findDelivery(db: Executor, tenant: Tenant, deliveryId: string): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .executeTakeFirst();
}

export async function lockDelivery(tx: Tx, tenant: Tenant, deliveryId: string): Promise<DeliveryRow | undefined> {
  return tx
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .forUpdate()
    .executeTakeFirst();
}

export interface DeliveryListQuery extends Tenant {
  caseId?: string;
  status?: DeliveryStatus;
  eventType?: string;
  endpointId?: string;
  limit: number;
  /** The last row of the previous page. */
  after?: { createdAt: Date; id: string };
}

/** Newest first, keyset-paged on (created_at, delivery_id); one extra row tells whether more remain. */
export async function listDeliveries(db: Executor, query: DeliveryListQuery): Promise<{ rows: (DeliveryRow & { url: string })[]; hasMore: boolean }> {
  let q = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.endpoint_id', 'd.endpoint_id')
    .selectAll('d')
    .select('e.url')
    .where('d.org_id', '=', query.orgId)
    .where('d.environment', '=', query.environment);
  if (query.caseId !== undefined) q = q.where('d.case_id', '=', query.caseId);
  if (query.status !== undefined) q = q.where('d.status', '=', query.status);
  if (query.eventType !== undefined) q = q.where('d.event_type', '=', query.eventType);
  if (query.endpointId !== undefined) q = q.where('d.endpoint_id', '=', query.endpointId);
  if (query.after) {
    const { createdAt, id } = query.after;
    q = q.where((eb) => eb.or([eb('d.created_at', '<', createdAt), eb.and([eb('d.created_at', '=', createdAt), eb('d.delivery_id', '<', id)])]));
  }
  const rows = await q.orderBy('d.created_at', 'desc').orderBy('d.delivery_id', 'desc').limit(query.limit + 1).execute();
  return { rows: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
}

export async function listAttempts(db: Executor, tenant: Tenant, deliveryId: string): Promise<AttemptRow[]> {
  return db
    .selectFrom('webhook_delivery_attempts')
    .selectAll()
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempt_number')
    .execute();
}

/** A failed delivery goes back to the queue with a fresh budget of attempts. */
export async function requeueFailedDelivery(tx: Executor, tenant: Tenant, deliveryId: string, now: Date): Promise<DeliveryRow | undefined> {
  return tx
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', attempt_count: 0, next_attempt_at: now, failed_at: null, locked_by: null, locked_until: null, updated_at: now })
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('delivery_id', '=', deliveryId)
    .where('status', '=', 'failed')
    .returningAll()
    .executeTakeFirst();
}

export async function markDeliveryAcknowledged(tx: Executor, tenant: Tenant, deliveryId: string, acknowledgementId: string | null, now: Date): Promise<void> {
  await tx
    .updateTable('webhook_deliveries')
    .set({ acknowledged_at: now, acknowledgement_id: acknowledgementId, updated_at: now })
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('delivery_id', '=', deliveryId)
    .where('acknowledged_at', 'is', null)
    .execute();
}

/** Whether another case.completed delivery of the case can still arrive, or already has. */
export async function caseHasLiveHandoffDeliveryUnscoped(db: Executor, caseId: string, exceptDeliveryId: string): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('delivery_id')
    .where('case_id', '=', caseId)
    .where('event_type', '=', 'v1.case.completed')
    .where('delivery_id', '<>', exceptDeliveryId)
    .where('status', '<>', 'failed')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Deliveries per endpoint and status created since `since`: the endpoint list's recent success. */
export async function countRecentDeliveriesByEndpoint(
  db: Executor,
  query: Tenant & { since: Date },
): Promise<{ endpoint_id: string; status: DeliveryStatus; n: number }[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['endpoint_id', 'status', (eb) => eb.fn.countAll<string>().as('n')])
    .where('org_id', '=', query.orgId)
    .where('environment', '=', query.environment)
    .where('created_at', '>=', query.since)
    .groupBy(['endpoint_id', 'status'])
    .execute();
  return rows.map((r) => ({ endpoint_id: r.endpoint_id, status: r.status, n: Number(r.n) }));
}

/** An endpoint's deliveries under a live lease: what a `dossier listen` stream has handed out and not heard back about. */
export async function countLeasedDeliveries(db: Executor, tenant: Tenant, endpointId: string, now: Date): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('endpoint_id', '=', endpointId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('status', 'in', ['pending', 'retry_scheduled'])
    .where('locked_until', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** An attempt made outside the claim (a test send, made and recorded in one request). */
export async function insertAttempt(tx: Executor, row: Insertable<WebhookDeliveryAttemptsTable>): Promise<void> {
  await tx.insertInto('webhook_delivery_attempts').values(row).execute();
}
