import { sql } from 'kysely';
import type { Environment } from '../config.ts';
import type { Executor } from './schema.ts';

export interface CaseDueForErasure {
  case_id: string;
  org_id: string;
  environment: Environment;
  /** Documents not yet erased. */
  documents: number;
}

/**
 * Completed cases that still hold documents and whose retention has run out: the case type's
 * current `retention.documents_days` (null there keeps them), else `defaultDays`
 * (DOCUMENT_RETENTION_DAYS), else kept. Oldest completion first.
 *
 * Walks cases_completed in completion order up to the longest cutoff and probes documents_case
 * for each, so a sweep that finds nothing reads every completed case older than the shortest
 * retention once: about a second per million such cases, once per sweep interval.
 */
export async function findCasesDueForDocumentErasureUnscoped(
  db: Executor,
  input: { now: Date; defaultDays: number | null; limit: number },
): Promise<CaseDueForErasure[]> {
  const result = await sql<CaseDueForErasure>`
    select c.case_id, c.org_id, c.environment,
      (select count(*) from documents d where d.case_id = c.case_id and d.erased_at is null)::integer as documents
    from cases c
    join case_types t on t.org_id = c.org_id and t.environment = c.environment and t.case_type_id = c.case_type_id
    cross join lateral (
      select case
        when jsonb_exists(coalesce(t.definition -> 'retention', '{}'::jsonb), 'documents_days')
          then (t.definition -> 'retention' ->> 'documents_days')::integer
        else ${input.defaultDays}::integer
      end as days
    ) r
    where c.runtime_status = 'complete'
      and r.days is not null
      and c.completed_at < ${input.now}::timestamptz - make_interval(days => r.days)
      and exists (select 1 from documents d where d.case_id = c.case_id and d.erased_at is null)
    order by c.completed_at
    limit ${input.limit}`.execute(db);
  return result.rows;
}
