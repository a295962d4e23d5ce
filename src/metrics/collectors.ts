import { Counter } from 'prom-client';
import type { Clock } from '../ports/clock.ts';
import type { RateLimitStore } from '../ports/rate-limit-store.ts';
import type { PoolStats } from '../storage/database.ts';
import { summarizeAttemptQueue, summarizeCaseJobsUnscoped, type JobQueueSummary } from '../storage/job-summaries.ts';
import type { Db } from '../storage/schema.ts';
import { scrapeGauge, type Metrics } from './metrics.ts';

/**
 * One queue of background work, as /metrics sees it. Adding a kind of job to the gauges is one
 * entry in JOB_SOURCES: a storage function that summarises its table.
 */
export interface JobSource {
  summarize(db: Db, now: Date): Promise<JobQueueSummary[]>;
}

/** Job kinds named in the gauges even while their table holds none, so dashboards show a zero rather than a gap. */
const CASE_JOB_KINDS = ['document_processing', 'gate_evaluation'] as const;

export const JOB_SOURCES: readonly JobSource[] = [
  { summarize: (db, now) => summarizeCaseJobsUnscoped(db, { now, kinds: CASE_JOB_KINDS }) },
  { summarize: (db, now) => summarizeAttemptQueue(db, { table: 'webhook_deliveries', kind: 'webhook_delivery', now }) },
  { summarize: (db, now) => summarizeAttemptQueue(db, { table: 'connector_calls', kind: 'connector_call', now }) },
];

/** Several scrapers (two Prometheus replicas, a person with curl) share one reading of the queues. */
const QUEUE_READING_TTL_MS = 2_000;

export interface CollectorInputs {
  db: Db;
  clock: Clock;
  pool: () => PoolStats;
  rateLimits: RateLimitStore;
  sources?: readonly JobSource[];
}

/**
 * The gauges read at scrape time. The queue gauges are the database's view, the same from every
 * process: aggregate them across processes with max(), not sum(). The pool gauges are per process.
 */
export function registerCollectors(metrics: Metrics, inputs: CollectorInputs): void {
  const sources = inputs.sources ?? JOB_SOURCES;
  let reading: { at: number; summaries: Promise<JobQueueSummary[]> } | undefined;
  const readQueues = () => {
    // The cache ages by the monotonic clock; the injected clock decides what is due.
    if (!reading || performance.now() - reading.at > QUEUE_READING_TTL_MS) {
      const now = inputs.clock.now();
      // One after another: a scrape takes one connection from the pool, never several.
      const summaries = (async () => {
        const all: JobQueueSummary[] = [];
        for (const source of sources) all.push(...(await source.summarize(inputs.db, now)));
        return all;
      })();
      reading = { at: performance.now(), summaries };
      // A failed reading is not kept: the next scrape tries again.
      summaries.catch(() => (reading = undefined));
    }
    return reading.summaries;
  };

  scrapeGauge(metrics.registry, {
    name: 'dossier_jobs',
    help: 'Background jobs by kind and state, as stored (queued, pending and retry_scheduled wait; running are leased; failed gave up).',
    labelNames: ['kind', 'state'] as const,
    async collect(gauge) {
      gauge.reset();
      for (const summary of await readQueues()) {
        for (const [state, count] of Object.entries(summary.counts)) gauge.set({ kind: summary.kind, state }, count);
      }
    },
  });
  scrapeGauge(metrics.registry, {
    name: 'dossier_jobs_oldest_runnable_age_seconds',
    help: 'How long the oldest job a worker could run now has been waiting, by kind (0 when none waits).',
    labelNames: ['kind'] as const,
    async collect(gauge) {
      gauge.reset();
      const now = inputs.clock.now().getTime();
      for (const summary of await readQueues()) {
        const since = summary.oldestRunnableSince;
        gauge.set({ kind: summary.kind }, since ? Math.max(0, (now - since.getTime()) / 1000) : 0);
      }
    },
  });
  scrapeGauge(metrics.registry, {
    name: 'dossier_db_pool_in_use_connections',
    help: 'Database connections of this process running a query or transaction.',
    collect: (gauge) => gauge.set(inputs.pool().inUse),
  });
  scrapeGauge(metrics.registry, {
    name: 'dossier_db_pool_waiting_requests',
    help: 'Queries of this process waiting for a free database connection.',
    collect: (gauge) => gauge.set(inputs.pool().waiting),
  });
  let statementsCounted = 0;
  new Counter({
    name: 'dossier_db_statements_total',
    help: 'Statements this process has sent to the database (round trips), BEGIN and COMMIT included.',
    registers: [metrics.registry],
    collect() {
      const now = inputs.pool().statements;
      this.inc(Math.max(0, now - statementsCounted));
      statementsCounted = now;
    },
  });
  scrapeGauge(metrics.registry, {
    name: 'dossier_db_pool_max_connections',
    help: 'The size of this process\u2019s database connection pool.',
    collect: (gauge) => gauge.set(inputs.pool().max),
  });
  scrapeGauge(metrics.registry, {
    name: 'dossier_rate_limit_store_degraded',
    help: '1 while the shared rate-limit store (Redis) is unreachable and this process counts on its own.',
    collect: (gauge) => gauge.set(inputs.rateLimits.degraded() ? 1 : 0),
  });
}
