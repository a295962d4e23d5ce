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
  /**
   * How the claim leases (see `DeliveryLease`): `row` (default) writes `locked_by`/`locked_until`;
   * `session` takes a session-level advisory lock and writes nothing. `workerId` and `leaseUntil`
   * are used by `row` only.
   */
  lease?: DeliveryLease;
  /** Most deliveries one endpoint may be offered, before `inFlight` is taken off. */
  perEndpointLimit: number;
  /** Per endpoint, slots that are not free (in flight, or offered to a claim still running). */
  inFlight: ReadonlyMap<string, number>;
  /**
   * `session` only: locks of this session to release first, in the same statement (deliveries
   * whose outcome has committed, or handed back): saves the release its own round trip.
   */
  release?: readonly string[];
  /**
   * One endpoint only: a `dossier listen` stream claiming its listener's deliveries. Without it
   * (the delivery worker), a listener with a stream connected is skipped: the stream takes them.
   */
  endpointId?: string;
}

/**
 * The two leases a delivery can be under. Both keep it out of every other claim until its outcome
 * is recorded:
 * - `row`: `locked_by` and `locked_until` written by the claim (an UPDATE per delivery), guarded
 *   by `locked_by` on the outcome; a lease whose holder died runs out at `locked_until`. What
 *   `dossier listen` streams use (their lease spans HTTP requests, on any pooled connection) and
 *   what the embedded database uses (one connection is one session: see below).
 * - `session`: a session-level advisory lock (`pg_try_advisory_lock(DELIVERY_LOCK_CLASS,
 *   hashtext(delivery_id))`) taken by the claim and released on the same connection once the
 *   outcome has committed (by the next claim there, or `releaseSessionLocksUnscoped`), or by
 *   PostgreSQL when that connection ends (a worker killed, a network cut): the delivery is
 *   claimable again at once, with no lease to run out. The claim writes no row, so
 *   each delivery costs one write (its outcome) instead of two (issue 29). Only on a connection
 *   of its own (`DatabaseHandle.openSession`): a pooled connection would carry the lock to
 *   whichever caller used it next.
 * Every claim skips deliveries under either lease: a session claim skips a live `locked_until`
 * (listen streams, and rows leased by older code), and a row claim takes the advisory lock for its
 * own transaction only (`pg_try_advisory_xact_lock`), so it skips what a session holds.
 */
export type DeliveryLease = 'row' | 'session';

/** The first key of the deliveries' advisory locks ('dlv'); the second is `hashtext(delivery_id)`. Two-key locks are a space of their own. */
export const DELIVERY_LOCK_CLASS = 0x646c76;

/**
 * Leases up to `limit` due deliveries, fairly: each endpoint offers at most its free slots (its
 * earliest due ones), and the earliest of those win. So a dead endpoint with a thousand due
 * deliveries takes `perEndpointLimit` slots, never all of them, and cannot push the others back.
 *
 * The lateral walk costs one index probe per endpoint (webhook_deliveries_due). The candidates are
 * locked with SKIP LOCKED and re-checked under the lock, so concurrent claimers never lease one
 * delivery twice; the lease (`DeliveryLease`: the row's `locked_by` and `locked_until`, or the
 * claiming session's advisory lock) then keeps it out of every claim until the outcome is recorded,
 * or the row lease runs out or the session ends (a worker that died mid-send). One statement, run
 * on its own and committed relaxed (see `relaxedCommit`): not for use inside a transaction.
 */
export async function claimDueDeliveriesUnscoped(db: Executor, claim: ClaimRequest): Promise<ClaimedDelivery[]> {
  if (claim.limit <= 0) return [];
  const busyIds = [...claim.inFlight.keys()];
  const busyCounts = busyIds.map((id) => claim.inFlight.get(id)!);
  const session = claim.lease === 'session';
  const due = sql`d.status in ('pending', 'retry_scheduled')
          and d.next_attempt_at <= ${claim.now}
          and (d.locked_until is null or d.locked_until <= ${claim.now})`;
  // A session lease writes nothing on the row, so the walk must skip locked rows itself, or
  // every claim's candidates would be the rows at the head of the queue that other sessions
  // (and this one: its locks are re-entrant) already hold, and it would come back nearly empty
  // (measured: 8 of 32 rows with two claimers). The held keys are read once per claim from
  // pg_locks (two-key advisory locks of DELIVERY_LOCK_CLASS; `objid` is the second key as an
  // unsigned oid) and compared without taking anything, so no lock is taken for a row left out.
  // A lock taken after this read only makes the final `pg_try_advisory_lock` fail for that row.
  const walk = session
    ? sql`
          and hashtext(d.delivery_id) <> all((select keys from held_locks)::int[])`
    : sql``;
  // Prepared (database.ts): planning was 0.9 ms of the claim's 4.6 ms under the fan-out load,
  // and claims run one at a time per worker, so their round trip bounds its rate (issue 16).
  const picked = sql`with ${
    session
      ? sql`released as (
      select count(pg_advisory_unlock(${sql.raw(String(DELIVERY_LOCK_CLASS))}, hashtext(id))) as n from unnest(${claim.release ?? []}::text[]) as id
    ),
    held_locks as (
      select coalesce(array_agg((l.objid::bigint - case when l.objid::bigint >= 2147483648 then 4294967296 else 0 end)::int), '{}') as keys
      from pg_locks l
      where l.locktype = 'advisory' and l.classid = ${sql.raw(String(DELIVERY_LOCK_CLASS))} and l.objsubid = 2
    ),
    `
      : sql``
  }picked as (
      select due.delivery_id
      from webhook_endpoints e
      left join unnest(${busyIds}::text[], ${busyCounts}::int[]) as busy(endpoint_id, n) on busy.endpoint_id = e.endpoint_id
      cross join lateral (
        select d.delivery_id, d.next_attempt_at
        from webhook_deliveries d
        where d.endpoint_id = e.endpoint_id
          and ${due}${walk}
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
    )`;
  if (session) {
    // The row lock (SKIP LOCKED, re-checked on the newest version) comes first and the advisory
    // lock after it, in the outer query over the materialised CTE: every row the CTE returns is
    // returned if its lock is taken, so no lock is ever taken for a row left out (it would be
    // held by this session until its connection ended). The row lock is what makes a delivery
    // whose outcome committed after this statement's snapshot drop out: an outcome releases its
    // advisory lock before its COMMIT, while its row lock is still held, so a claim either skips
    // the row (still locked) or sees the recorded version (committed). The columns come from the
    // locked CTE, i.e. from that newest version.
    const result = await sql<ClaimedDelivery>`${sql.raw(PREPARED)}
    ${picked},
    locked as (
      select d.delivery_id, d.org_id, d.environment, d.endpoint_id, d.event_id, d.event_type, d.case_id, d.payload,
        d.attempt_count, d.total_attempts, e.url, e.kind, e.enabled, e.secret_box, e.previous_secret_box, e.previous_secret_expires_at
      from webhook_deliveries d
      join webhook_endpoints e on e.endpoint_id = d.endpoint_id
      where d.delivery_id in (select delivery_id from picked)
        and ${due}
      for update of d skip locked
    )
    select locked.*
    from (select n from released, ${relaxedCommit} relaxed) first
    left join locked on pg_try_advisory_lock(${sql.raw(String(DELIVERY_LOCK_CLASS))}, hashtext(locked.delivery_id))`.execute(db);
    // The left join from `released` (one row) runs the releases whether or not anything is
    // claimed; with nothing claimed it yields one row of nulls. Whether they run before or after
    // the walk reads pg_locks, both are safe: a released delivery's outcome has committed, so it
    // may be claimed again now (a due retry) or is skipped until the next claim.
    return result.rows.filter((r) => r.delivery_id !== null);
  }
  const result = await sql<ClaimedDelivery>`${sql.raw(PREPARED)}
    ${picked},
    locked as (
      select d.delivery_id
      from webhook_deliveries d
      where d.delivery_id in (select delivery_id from picked)
        and ${due}
      for update skip locked
    )
    update webhook_deliveries d
    set locked_by = ${claim.workerId}, locked_until = ${claim.leaseUntil}
    from locked, webhook_endpoints e, ${relaxedCommit} relaxed
    where d.delivery_id = locked.delivery_id and e.endpoint_id = d.endpoint_id
      and pg_try_advisory_xact_lock(${sql.raw(String(DELIVERY_LOCK_CLASS))}, hashtext(d.delivery_id))
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
 * Who records an outcome: the worker id a `row` lease was taken for (`locked_by`), or `SESSION`
 * for a delivery leased by a session's advisory lock (released afterwards, on that session, by
 * `releaseSessionLocksUnscoped`).
 */
export type LeaseHolder = string | typeof SESSION;

/** The holder of a `session` lease, whose outcome any connection may record. */
export const SESSION = { session: true } as const;

/**
 * Records outcomes in one statement, each guarded by ownership: only a delivery with no attempt
 * recorded since the claim (`total_attempts`), and under a `row` lease still leased by the worker
 * (`locked_by`), is updated, and only then is its attempt row written. A row lease that ran out
 * and was taken over makes the late outcome a no-op (the other worker's attempt counts). Returns
 * the ids that were recorded.
 *
 * A `session` lease is not touched here: the advisory lock is released after this commits, on the
 * session that holds it. Until then no other claim can take the delivery, and after it every
 * claim sees the recorded row (a claim's row lock re-reads the newest committed version), so a
 * delivery is never sent again for an attempt already recorded.
 *
 * `relaxed`: the plain outcomes' batch, one statement run on its own and committed relaxed (see
 * `relaxedCommit`); never inside a transaction that must commit normally.
 */
export async function recordAttemptOutcomesUnscoped(
  db: Executor,
  holder: LeaseHolder,
  outcomes: readonly RecordedAttempt[],
  now: Date,
  options: { relaxed?: boolean } = {},
): Promise<string[]> {
  if (outcomes.length === 0) return [];
  const input = JSON.stringify(outcomes);
  const guard = typeof holder === 'string' ? sql`d.locked_by = ${holder} and ` : sql``;
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
      where d.delivery_id = i.delivery_id and ${guard}d.total_attempts = i.attempt_number - 1
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

/** Gives row leases back without recording an attempt (a worker shutting down before it could send). */
export async function releaseLeaseUnscoped(db: Executor, workerId: string, deliveryIds: readonly string[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ locked_by: null, locked_until: null })
    .where('delivery_id', 'in', deliveryIds)
    .where('locked_by', '=', workerId)
    .execute();
}

/**
 * Releases `session` leases: on the session that took them, and only locks it still holds (a
 * lock it does not hold makes PostgreSQL warn). After the outcome committed, or without one (the
 * delivery is handed back and claimable again). Writes nothing, so it waits for no disk.
 */
export async function releaseSessionLocksUnscoped(session: Executor, deliveryIds: readonly string[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  await sql`select count(pg_advisory_unlock(${sql.raw(String(DELIVERY_LOCK_CLASS))}, hashtext(id))) from unnest(${deliveryIds}::text[]) as id`.execute(session);
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
