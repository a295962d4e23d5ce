import { sql } from 'kysely';
import type { Executor } from './schema.ts';
import { DELIVERY_LOCK_CLASS } from './webhooks/deliveries.ts';

/**
 * What a job queue holds right now, per kind: how many jobs are in each state, and since when the
 * oldest runnable one has been waiting. Read at scrape time by /metrics.
 *
 * Only the states an operator acts on are counted: waiting, running and failed. Succeeded jobs and
 * delivered deliveries are history that grows with traffic; counting them at every scrape would
 * be a table scan (the run and attempt counters say how much work was done). Every count here is
 * served by a partial index: case_jobs_due, case_jobs_failed, webhook_deliveries_due,
 * webhook_deliveries_finished.
 */
export interface JobQueueSummary {
  kind: string;
  counts: Record<string, number>;
  /** When the oldest job that a worker could claim now became claimable; null when none is waiting. */
  oldestRunnableSince: Date | null;
}

interface JobSummaryRow {
  kind: string;
  state: string;
  count: string | number;
  oldest: Date | string | null;
}

function toSummaries(rows: readonly JobSummaryRow[], kinds: readonly string[], states: readonly string[]): JobQueueSummary[] {
  const byKind = new Map<string, JobQueueSummary>(
    kinds.map((kind) => [kind, { kind, counts: Object.fromEntries(states.map((s) => [s, 0])), oldestRunnableSince: null }]),
  );
  for (const row of rows) {
    let summary = byKind.get(row.kind);
    if (!summary) {
      summary = { kind: row.kind, counts: Object.fromEntries(states.map((s) => [s, 0])), oldestRunnableSince: null };
      byKind.set(row.kind, summary);
    }
    summary.counts[row.state] = Number(row.count);
    if (row.oldest !== null) {
      const oldest = new Date(row.oldest);
      if (!summary.oldestRunnableSince || oldest < summary.oldestRunnableSince) summary.oldestRunnableSince = oldest;
    }
  }
  return [...byKind.values()];
}

/**
 * Case jobs (document processing, gate evaluation). Runnable: queued and due, or running under a
 * lease that ran out (its worker died), which is claimable since the lease ended.
 */
export async function summarizeCaseJobsUnscoped(db: Executor, input: { now: Date; kinds: readonly string[] }): Promise<JobQueueSummary[]> {
  const result = await sql<JobSummaryRow>`
    select kind, status as state, count(*) as count,
      min(case
        when status = 'queued' and run_after <= ${input.now} then run_after
        when status = 'running' and locked_until < ${input.now} then locked_until
      end) as oldest
    from case_jobs where status in ('queued', 'running')
    group by kind, status
    union all
    select kind, 'failed', count(*), null from case_jobs where status = 'failed' group by kind`.execute(db);
  return toSummaries(result.rows, input.kinds, ['queued', 'running', 'failed']);
}

/**
 * Tables of leased attempts with the delivery shape: `status` pending | retry_scheduled | … | failed,
 * `next_attempt_at`, `locked_until`: webhook deliveries and connector calls (workflow actions).
 */
export type AttemptQueueTable = 'webhook_deliveries' | 'connector_calls';

/**
 * A queue of attempts, as one kind. An item waiting for its attempt is `pending` or
 * `retry_scheduled`; one whose attempt is under way (leased) is `running`.
 */
export async function summarizeAttemptQueue(db: Executor, input: { table: AttemptQueueTable; kind: string; now: Date }): Promise<JobQueueSummary[]> {
  const table = sql.table(input.table);
  // A webhook delivery may instead be leased by a worker session's advisory lock, which leaves no
  // trace on the row (deliveries.ts, `DeliveryLease`): read the held keys as its claim does.
  const leased =
    input.table === 'webhook_deliveries'
      ? sql`(locked_until > ${input.now} or hashtext(delivery_id) = any((
          select array_agg((l.objid::bigint - case when l.objid::bigint >= 2147483648 then 4294967296 else 0 end)::int)
          from pg_locks l where l.locktype = 'advisory' and l.classid = ${sql.raw(String(DELIVERY_LOCK_CLASS))} and l.objsubid = 2)::int[]))`
      : sql`locked_until > ${input.now}`;
  const result = await sql<JobSummaryRow>`
    select ${input.kind}::text as kind,
      case when ${leased} then 'running' else status end as state,
      count(*) as count,
      min(case when next_attempt_at <= ${input.now} and not coalesce(${leased}, false) then next_attempt_at end) as oldest
    from ${table} where status in ('pending', 'retry_scheduled')
    group by 2
    union all
    select ${input.kind}::text, 'failed', count(*), null from ${table} where status = 'failed'`.execute(db);
  return toSummaries(result.rows, [input.kind], ['pending', 'retry_scheduled', 'running', 'failed']);
}
