import { hostname } from 'node:os';
import type { AppContext } from '../app-context.ts';
import { evaluateCaseGates, GATE_EVALUATION_JOB } from '../domain/cases/evaluate-case.ts';
import { claimDueCaseJobs, finishCaseJob } from '../storage/case-jobs.ts';
import { abandonDocumentJob, processDocumentJob } from '../domain/processing/document-job.ts';
import { DOCUMENT_PROCESSING_JOB } from '../domain/processing/process-document.ts';
import type { CaseJobRow } from '../storage/cases.ts';
import type { JobTask } from './worker.ts';

/** What a case job kind does. Document processing registers its handler here too. */
export type CaseJobHandler = (ctx: AppContext, job: CaseJobRow) => Promise<void>;

/**
 * Leaves a job's subject in a final state when the job is given up on: its last attempt threw,
 * or it was claimed again after more attempts than allowed ended with no outcome at all (the
 * worker crashed or was killed each time).
 */
export type CaseJobGiveUp = (ctx: AppContext, job: CaseJobRow) => Promise<void>;

/**
 * Longer than the slowest legitimate job: a document job fetches for up to 30 s and extracts for
 * up to 120 s + 5 s before its child is killed. A lease that ended mid-run would let a second
 * worker start the same document.
 */
const LEASE_MS = 180_000;
const MAX_ATTEMPTS = 5;

export interface CaseJobsOptions {
  idleMs?: number;
  batch?: number;
  /** Attempts per kind, counted at claim (MAX_ATTEMPTS when absent). */
  maxAttempts?: Record<string, number>;
  giveUp?: Record<string, CaseJobGiveUp>;
}

/**
 * Runs queued case jobs (gate evaluation, document processing): claims a batch with SKIP LOCKED
 * under a lease, runs each, and records the outcome only while it still owns the job. Attempts
 * are counted when a job is claimed, so an attempt that took its worker down counts too. A
 * failure is retried with backoff; after the kind's attempts the job is `failed` with its last
 * error, and its give-up handler settles the subject. A job claimed with its attempts already
 * spent (each one ended with the worker gone) is not run again: it is given up on at once.
 */
export function caseJobsTask(handlers: Record<string, CaseJobHandler>, options: CaseJobsOptions = {}): JobTask {
  const workerId = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  const giveUp = async (ctx: AppContext, job: CaseJobRow, error: string) => {
    try {
      await options.giveUp?.[job.kind]?.(ctx, job);
    } catch (err) {
      ctx.logger.error({ err, job_id: job.job_id, kind: job.kind }, 'case job give-up failed');
    }
    await finishCaseJob(ctx.db, { jobId: job.job_id, workerId, now: ctx.clock.now(), status: 'failed', error: error.slice(0, 500) });
  };
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
        const maxAttempts = options.maxAttempts?.[job.kind] ?? MAX_ATTEMPTS;
        if (job.attempts > maxAttempts) {
          ctx.logger.error({ job_id: job.job_id, kind: job.kind, attempts: job.attempts - 1 }, 'case job abandoned: every attempt ended without an outcome');
          observe('failed');
          await giveUp(ctx, job, `abandoned after ${job.attempts - 1} attempts that ended without an outcome (the worker stopped during each)`);
          continue;
        }
        try {
          await handlers[job.kind]!(ctx, job);
          observe('succeeded');
          await finishCaseJob(ctx.db, { jobId: job.job_id, workerId, now: ctx.clock.now(), status: 'succeeded' });
        } catch (err) {
          ctx.logger.error({ err, job_id: job.job_id, kind: job.kind }, 'case job failed');
          const finalAttempt = job.attempts >= maxAttempts;
          observe(finalAttempt ? 'failed' : 'retried');
          if (finalAttempt) {
            await giveUp(ctx, job, (err as Error).message);
            continue;
          }
          await finishCaseJob(ctx.db, {
            jobId: job.job_id,
            workerId,
            now: ctx.clock.now(),
            status: 'queued',
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
  [GATE_EVALUATION_JOB]: (ctx, job) => evaluateCaseGates(ctx, { caseId: job.case_id }),
  [DOCUMENT_PROCESSING_JOB]: (ctx, job) => processDocumentJob({ ...ctx, http: ctx.outbound, extractor: ctx.extraction, renderer: ctx.extraction, simulatedSlowReadMs: ctx.config.simulatedSlowReadMs }, { docId: job.subject_id! }),
};

/**
 * Document jobs get fewer attempts than the default: one that is killed can cost its full
 * deadline on a core each time, and a document that was killed twice will be killed again.
 */
export const CASE_ENGINE_OPTIONS: Pick<CaseJobsOptions, 'maxAttempts' | 'giveUp'> = {
  maxAttempts: { [DOCUMENT_PROCESSING_JOB]: 3 },
  giveUp: { [DOCUMENT_PROCESSING_JOB]: (ctx, job) => abandonDocumentJob(ctx, { docId: job.subject_id! }) },
};
