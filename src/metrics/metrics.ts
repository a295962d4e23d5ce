import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The service's Prometheus series, one registry per process (never prom-client's global one: tests
 * run many services in one process, and nothing here may be a module-level singleton).
 *
 * Labels are closed sets by construction: route templates (never the path), status classes,
 * job kinds and states from the code, outcome words from the code, document formats from the
 * sniffer. No id, key, URL or workspace ever becomes a label value: a series per case would grow
 * without bound and would leak identifiers into monitoring systems.
 */
export interface Metrics {
  readonly registry: Registry;
  observeHttpRequest(input: { method: string; route: string; statusCode: number; seconds: number }): void;
  /** `final`: the attempt was the delivery's last (it is now `failed`). */
  countDeliveryAttempt(outcome: DeliveryAttemptOutcome, final?: boolean): void;
  observeExtraction(input: { format: DocumentFormat; outcome: 'processed' | 'failed'; seconds: number }): void;
  observeJobRun(input: { kind: string; outcome: 'succeeded' | 'retried' | 'failed'; seconds: number }): void;
  countRetentionDeletions(what: RetentionTarget, count: number): void;
}

export type DeliveryAttemptOutcome = 'delivered' | 'http_status' | 'redirect' | 'timeout' | 'connection_failed' | 'blocked_address' | 'invalid_url';
export type DocumentFormat = 'pdf' | 'png' | 'jpeg' | 'docx' | 'text' | 'unknown';
export type RetentionTarget = 'webhook_deliveries' | 'webhook_delivery_attempts' | 'documents' | 'document_objects';

/** Gauges read at scrape time (queue depth, pool use) register here; see collectors.ts. */
export interface MetricsOptions {
  /** Process series (memory, CPU, event loop): only where /metrics is served, since they cost a timer each. */
  processMetrics: boolean;
}

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Fast API answers sit in the first buckets; the upper ones catch document uploads and slow storage. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Text layers take milliseconds; OCR of a page takes seconds; the extraction limit is 120 s. */
const EXTRACTION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });

  const http = new Histogram({
    name: 'dossier_http_request_duration_seconds',
    help: 'HTTP request duration, by route template and status class.',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  const attempts = new Counter({
    name: 'dossier_webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts made by this process, by outcome (delivered, or why the attempt failed).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const givenUp = new Counter({
    name: 'dossier_webhook_deliveries_failed_total',
    help: 'Webhook deliveries whose last attempt failed in this process: they are now failed.',
    registers: [registry],
  });
  const extraction = new Histogram({
    name: 'dossier_extraction_duration_seconds',
    help: 'Page extraction (text layer, OCR, DOCX) duration per document, by sniffed format and outcome.',
    labelNames: ['format', 'outcome'] as const,
    buckets: EXTRACTION_BUCKETS,
    registers: [registry],
  });
  const jobRuns = new Histogram({
    name: 'dossier_job_run_duration_seconds',
    help: 'Case job runs in this process (document processing, gate evaluation), by kind and outcome.',
    labelNames: ['kind', 'outcome'] as const,
    buckets: JOB_BUCKETS,
    registers: [registry],
  });
  const retention = new Counter({
    name: 'dossier_retention_deleted_total',
    help: 'Rows pruned or documents erased by the retention sweeps in this process.',
    labelNames: ['target'] as const,
    registers: [registry],
  });

  return {
    registry,
    observeHttpRequest({ method, route, statusCode, seconds }) {
      http.observe(
        { method: HTTP_METHODS.has(method) ? method : 'other', route, status_class: `${Math.floor(statusCode / 100)}xx` },
        seconds,
      );
    },
    countDeliveryAttempt(outcome, final = false) {
      attempts.inc({ outcome });
      if (final) givenUp.inc();
    },
    observeExtraction({ format, outcome, seconds }) {
      extraction.observe({ format, outcome }, seconds);
    },
    observeJobRun({ kind, outcome, seconds }) {
      jobRuns.observe({ kind, outcome }, seconds);
    },
    countRetentionDeletions(target, count) {
      if (count > 0) retention.inc({ target }, count);
    },
  };
}

const FORMATS: Record<string, DocumentFormat> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/plain': 'text',
};

/** The label for a MIME type: anything the sniffer did not recognise is `unknown`, so the set stays closed. */
export function documentFormatOf(mimeType: string | null | undefined): DocumentFormat {
  return (mimeType && FORMATS[mimeType.split(';')[0]!.trim()]) || 'unknown';
}

/** A Gauge whose value is read when Prometheus scrapes: used by the collectors. */
export function scrapeGauge<L extends string>(
  registry: Registry,
  spec: { name: string; help: string; labelNames?: readonly L[]; collect: (gauge: Gauge<L>) => Promise<void> | void },
): Gauge<L> {
  return new Gauge<L>({
    name: spec.name,
    help: spec.help,
    labelNames: spec.labelNames ?? [],
    registers: [registry],
    async collect() {
      await spec.collect(this);
    },
  });
}
