import { sql } from 'kysely';
import type { Executor } from './schema.ts';
import type { Tenant } from '../ports/tenant.ts';

export interface QueueFilter extends Tenant {
  queueCategory?: string;
  runtimeStatus?: string;
  caseTypeId?: string;
  /** One of the case's ids exactly: case_id, external_case_id, external_applicant_id or external_customer_id. */
  search?: string;
  after?: { sortTimestamp: Date; caseId: string };
  limit: number;
}

/** Queue rows oldest first (by when the case entered its status), keyset-paged. */
export async function listQueueRows(db: Executor, f: QueueFilter) {
  let q = db
    .selectFrom('cases')
    .select(['case_id', 'queue_row', 'status_changed_at', 'updated_at', 'case_type_id', 'external_case_id', 'external_applicant_id', 'external_customer_id', 'created_at'])
    .where('org_id', '=', f.orgId)
    .where('environment', '=', f.environment);
  if (f.queueCategory) q = q.where('queue_category', '=', f.queueCategory);
  if (f.runtimeStatus) q = q.where('runtime_status', '=', f.runtimeStatus as never);
  if (f.caseTypeId) q = q.where('case_type_id', '=', f.caseTypeId);
  if (f.search !== undefined) {
    const term = f.search;
    // Exact matches only: each arm is served by its own index (ids are never searched by prefix).
    q = q.where((eb) => eb.or([eb('case_id', '=', term), eb('external_case_id', '=', term), eb('external_applicant_id', '=', term), eb('external_customer_id', '=', term)]));
  }
  if (f.after) {
    const { sortTimestamp, caseId } = f.after;
    q = q.where((eb) => eb.or([eb('status_changed_at', '>', sortTimestamp), eb.and([eb('status_changed_at', '=', sortTimestamp), eb('case_id', '>', caseId)])]));
  }
  const rows = await q.orderBy('status_changed_at').orderBy('case_id').limit(f.limit + 1).execute();
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

/** How many open cases (every category but `done`) sit in each queue category: an index-only walk of cases_queue_open_counts. */
export async function countOpenQueueCategories(db: Executor, tenant: Tenant): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('cases')
    .select(['queue_category', sql<string>`count(*)`.as('n')])
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('queue_category', '<>', 'done')
    .groupBy('queue_category')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.queue_category, Number(r.n)]));
}

/** How many cases are done (a range of cases_queue). */
export async function countDoneCases(db: Executor, tenant: Tenant): Promise<number> {
  const row = await db
    .selectFrom('cases')
    .select(sql<string>`count(*)`.as('n'))
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('queue_category', '=', 'done')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
