import { hostname } from 'node:os';
import type { AppContext } from '../app-context.ts';
import { evaluateCaseGates, GATE_EVALUATION_JOB } from '../domain/cases/evaluate-case.ts';
import { claimDueCaseJobs, finishCaseJob } from '../storage/case-jobs.ts';
import { processDocumentJob } from '../domain/processing/document-job.ts';
import { DOCUMENT_PROCESSING_JOB } from '../domain/processing/process-document.ts';
import type { CaseJobRow } from '../storage/cases.ts';
import type { JobTask } from './worker.ts';

/** What a case job kind does. Document processing registers its handler here too. */
export type CaseJobHandler = (ctx: AppContext, job: CaseJobRow) => Promise<void>;

const LEASE_MS = 60_000;
const MAX_ATTEMPTS = 5;

/**
 * Runs queued case jobs (gate evaluation, document processing): claims a batch with SKIP LOCKED
 * under a lease, runs each, and records the outcome only while it still owns the job. A failure
 * is retried with backoff; after MAX_ATTEMPTS the job is `failed` with its last error.
 */
export function caseJobsTask(handlers: Record<string, CaseJobHandler>, options: { idleMs?: number; batch?: number } = {}): JobTask {
  const workerId = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  return {
    name: 'case-jobs',
    idleMs: options.idleMs ?? 500,
    async run(ctx) {
      const now = ctx.clock.now();
      const jobs = await claimDueCaseJobs(ctx.db, {
        kinds: Object.keys(handlers),
        workerId,
        now,
        leaseUntil: new Date(now.getTime() + LEASE_MS),
        limit: options.batch ?? 10,
      });
      for (const job of jobs) {
        const started = performance.now();
        const observe = (outcome: 'succeeded' | 'retried' | 'failed') =>
          ctx.metrics.observeJobRun({ kind: job.kind, outcome, seconds: (performance.now() - started) / 1000 });
        try {
          await handlers[job.kind]!(ctx, job);
          observe('succeeded');
          await finishCaseJob(ctx.db, { jobId: job.job_id, workerId, now: ctx.clock.now(), status: 'succeeded' });
        } catch (err) {
          ctx.logger.error({ err, job_id: job.job_id, kind: job.kind }, 'case job failed');
          const finalAttempt = job.attempts >= MAX_ATTEMPTS;
          observe(finalAttempt ? 'failed' : 'retried');
          await finishCaseJob(ctx.db, {
            jobId: job.job_id,
            workerId,
            now: ctx.clock.now(),
            status: finalAttempt ? 'failed' : 'queued',
            error: (err as Error).message.slice(0, 500),
            runAfter: new Date(ctx.clock.now().getTime() + 2 ** job.attempts * 1000),
          });
        }
      }
      return jobs.length;
    },
  };
}

export const CASE_ENGINE_HANDLERS: Record<string, CaseJobHandler> = {
  [GATE_EVALUATION_JOB]: (ctx, job) => evaluateCaseGates(ctx, job.case_id),
  [DOCUMENT_PROCESSING_JOB]: (ctx, job) => processDocumentJob({ ...ctx, http: ctx.outbound, ocr: () => ctx.ocr }, job.subject_id!),
};
