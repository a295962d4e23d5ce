import { sql } from 'kysely';
import type { CaseJobRow } from './cases.ts';
import type { Executor, Tx } from './schema.ts';
import type { Tenant } from '../ports/tenant.ts';

export async function enqueueCaseJob(
  tx: Tx,
  job: Tenant & { jobId: string; caseId: string; kind: string; subjectId: string | null; runAfter: Date },
): Promise<void> {
  await tx
    .insertInto('case_jobs')
    .values({
      job_id: job.jobId,
      case_id: job.caseId,
      org_id: job.orgId,
      environment: job.environment,
      kind: job.kind,
      status: 'queued',
      subject_id: job.subjectId,
      attempts: 0,
      run_after: job.runAfter,
      locked_by: null,
      locked_until: null,
      last_error: null,
      created_at: job.runAfter,
      updated_at: job.runAfter,
    })
    .execute();
}

/**
 * Claims up to `limit` due jobs of the given kinds for `workerId` until `leaseUntil`. SKIP LOCKED
 * lets any number of workers claim side by side; an expired lease (a worker that died) makes its
 * job claimable again.
 */
export async function claimDueCaseJobsUnscoped(
  db: Executor,
  input: { kinds: readonly string[]; workerId: string; now: Date; leaseUntil: Date; limit: number },
): Promise<CaseJobRow[]> {
  const result = await sql<CaseJobRow>`
    with due as (
      select job_id from case_jobs
      where kind in (${sql.join(input.kinds)})
        and ((status = 'queued' and run_after <= ${input.now})
          or (status = 'running' and locked_until < ${input.now}))
      order by run_after
      limit ${input.limit}
      for update skip locked
    )
    update case_jobs j
    set status = 'running', locked_by = ${input.workerId}, locked_until = ${input.leaseUntil},
        attempts = j.attempts + 1, updated_at = ${input.now}
    from due where j.job_id = due.job_id
    returning j.*`.execute(db);
  return result.rows;
}

/** Ends a job this worker still owns; a job whose lease was lost to another worker is left alone. */
export async function finishCaseJobUnscoped(
  db: Executor,
  input: { jobId: string; workerId: string; now: Date; status: 'succeeded' | 'failed' | 'queued'; error?: string; runAfter?: Date },
): Promise<boolean> {
  const result = await db
    .updateTable('case_jobs')
    .set({
      status: input.status,
      locked_by: null,
      locked_until: null,
      updated_at: input.now,
      last_error: input.error ?? null,
      ...(input.runAfter ? { run_after: input.runAfter } : {}),
    })
    .where('job_id', '=', input.jobId)
    .where('locked_by', '=', input.workerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
