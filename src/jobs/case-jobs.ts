import type { AppContext } from '../domain/deps.ts';
import { evaluateCaseGates, GATE_EVALUATION_JOB } from '../domain/cases/evaluate-case.ts';
import { claimDueCaseJobsUnscoped, finishCaseJobUnscoped } from '../storage/case-jobs.ts';
import { abandonDocumentJob, processDocumentJob } from '../domain/processing/document-job.ts';
import { DOCUMENT_PROCESSING_JOB } from '../domain/documents/processing-job.ts';
import type { CaseJobRow } from '../storage/cases.ts';
import { BatchLeasedTask, type LeasedKind } from './leased-tasks.ts';
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
 * up to 120 s + 5 s before its child is killed. With LEASE_MARGIN_MS the lease is 180 s; a lease
 * that ended mid-run would let a second worker start the same document.
 */
const RUN_MS = 175_000;
const MAX_ATTEMPTS = 5;

export interface CaseJobsOptions {
  idleMs?: number;
  batch?: number;
  /** Attempts per kind, counted at claim (MAX_ATTEMPTS when absent). */
  maxAttempts?: Record<string, number>;
  giveUp?: Record<string, CaseJobGiveUp>;
}

type CaseJobOutcome = { seconds: number } & ({ kind: 'succeeded' } | { kind: 'threw'; error: string } | { kind: 'abandoned' });

/**
 * Runs queued case jobs (gate evaluation, document processing) in the leased pipeline
 * (`leased-tasks.ts`): a batch claimed with SKIP LOCKED under a lease, run one by one, each outcome
 * recorded only while this worker still owns the job. Attempts are counted when a job is claimed,
 * so an attempt that took its worker down counts too. A failure is retried with backoff; after the
 * kind's attempts the job is `failed` with its last error, and its give-up handler settles the
 * subject. A job claimed with its attempts already spent (each one ended with the worker gone) is
 * not run again: it is given up on at once.
 */
export function caseJobsTask(handlers: Record<string, CaseJobHandler>, options: CaseJobsOptions = {}): JobTask {
  const maxAttemptsOf = (job: CaseJobRow) => options.maxAttempts?.[job.kind] ?? MAX_ATTEMPTS;
  const giveUp = async (ctx: AppContext, workerId: string, job: CaseJobRow, error: string) => {
    try {
      await options.giveUp?.[job.kind]?.(ctx, job);
    } catch (err) {
      ctx.logger.error({ err, job_id: job.job_id, kind: job.kind }, 'case job give-up failed');
    }
    await finishCaseJobUnscoped(ctx.db, { jobId: job.job_id, workerId, now: ctx.clock.now(), status: 'failed', error: error.slice(0, 500) });
  };
  const caseJobs: LeasedKind<CaseJobRow, CaseJobOutcome> = {
    runMs: () => RUN_MS,
    claim: (ctx, lease) => claimDueCaseJobsUnscoped(ctx.db, { ...lease, kinds: Object.keys(handlers) }),
    async run(ctx, job) {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      if (job.attempts > maxAttemptsOf(job)) return { kind: 'abandoned', seconds: 0 };
      try {
        await handlers[job.kind]!(ctx, job);
        return { kind: 'succeeded', seconds: seconds() };
      } catch (err) {
        ctx.logger.error({ err, job_id: job.job_id, kind: job.kind }, 'case job failed');
        return { kind: 'threw', error: (err as Error).message, seconds: seconds() };
      }
    },
    async record(ctx, workerId, job, outcome) {
      const observe = (result: 'succeeded' | 'retried' | 'failed') => ctx.metrics.observeJobRun({ kind: job.kind, outcome: result, seconds: outcome.seconds });
      if (outcome.kind === 'abandoned') {
        ctx.logger.error({ job_id: job.job_id, kind: job.kind, attempts: job.attempts - 1 }, 'case job abandoned: every attempt ended without an outcome');
        observe('failed');
        await giveUp(ctx, workerId, job, `abandoned after ${job.attempts - 1} attempts that ended without an outcome (the worker stopped during each)`);
      } else if (outcome.kind === 'succeeded') {
        observe('succeeded');
        await finishCaseJobUnscoped(ctx.db, { jobId: job.job_id, workerId, now: ctx.clock.now(), status: 'succeeded' });
      } else if (job.attempts >= maxAttemptsOf(job)) {
        observe('failed');
        await giveUp(ctx, workerId, job, outcome.error);
      } else {
        observe('retried');
        await finishCaseJobUnscoped(ctx.db, {
          jobId: job.job_id,
          workerId,
          now: ctx.clock.now(),
          status: 'queued',
          error: outcome.error.slice(0, 500),
          runAfter: new Date(ctx.clock.now().getTime() + 2 ** job.attempts * 1000),
        });
      }
    },
    describe: (job) => ({ job_id: job.job_id, kind: job.kind }),
  };
  return new BatchLeasedTask(caseJobs, { name: 'case-jobs', pollMs: options.idleMs ?? 500, idleMs: options.idleMs ?? 500, batch: options.batch ?? 10, concurrent: false });
}

export const CASE_ENGINE_HANDLERS: Record<string, CaseJobHandler> = {
  [GATE_EVALUATION_JOB]: (ctx, job) => evaluateCaseGates(ctx, { caseId: job.case_id }),
  [DOCUMENT_PROCESSING_JOB]: (ctx, job) => processDocumentJob({ ...ctx, http: ctx.outbound.documents, extractor: ctx.extraction, renderer: ctx.extraction, simulatedSlowReadMs: ctx.config.simulatedSlowReadMs }, { docId: job.subject_id! }),
};

/**
 * Document jobs get fewer attempts than the default: one that is killed can cost its full
 * deadline on a core each time, and a document that was killed twice will be killed again.
 */
export const CASE_ENGINE_OPTIONS: Pick<CaseJobsOptions, 'maxAttempts' | 'giveUp'> = {
  maxAttempts: { [DOCUMENT_PROCESSING_JOB]: 3 },
  giveUp: { [DOCUMENT_PROCESSING_JOB]: (ctx, job) => abandonDocumentJob(ctx, { docId: job.subject_id! }) },
};
