import { sql, type ExpressionBuilder } from 'kysely';
import type { Database, Executor } from './schema.ts';
import type { Tenant } from '../ports/tenant.ts';

export interface QueueFilter extends Tenant {
  queueCategory?: string;
  runtimeStatus?: string;
  caseTypeId?: string;
  /**
   * What an operator typed: one of the case's ids exactly, or a part of the applicant's answers
   * (name, email), of an external id, or of a fact's value, in any case.
   */
  search?: string;
  /** An operator id: their cases; null: cases nobody has taken. */
  assignedTo?: string | null;
  after?: { sortTimestamp: Date; caseId: string };
  limit: number;
}

/** `%term%` for LIKE, with the term's own wildcards and backslashes taken literally. */
function containing(term: string): string {
  return `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * A case matches a search by an id exactly, or by a part of an external id, of one of the
 * applicant's answers or prefilled values (values only, never the keys: "name" does not match
 * every case), or of a fact's value. Written as a union of candidate ids so each arm can use its
 * own index on PostgreSQL: the primary key and external-id indexes for the exact arms, and the
 * trigram indexes of migration 0025 for the "part of" arms (the case row's text as a prefilter,
 * then the values-only check; the facts' lowered value). The embedded database has no pg_trgm
 * and scans the same arms.
 */
function matchesSearch(tenant: Tenant, term: string) {
  const like = containing(term);
  return sql<boolean>`cases.case_id in (
    select c.case_id from cases c where c.org_id = ${tenant.orgId} and c.environment = ${tenant.environment}
      and (c.case_id = ${term} or c.external_case_id = ${term} or c.external_applicant_id = ${term} or c.external_customer_id = ${term})
    union
    select c.case_id from cases c where c.org_id = ${tenant.orgId} and c.environment = ${tenant.environment}
      and ${CASE_SEARCH_TEXT_OF_C} like ${like}
      and (lower(coalesce(c.external_case_id, '') || ' ' || coalesce(c.external_applicant_id, '') || ' ' || coalesce(c.external_customer_id, '')) like ${like}
        or exists (select 1 from jsonb_each_text(c.structured_inputs) v where lower(v.value) like ${like})
        or exists (select 1 from jsonb_each_text(c.prefill) v where lower(v.value) like ${like}))
    union
    select f.case_id from facts f where f.org_id = ${tenant.orgId} and f.environment = ${tenant.environment} and lower(f.value) like ${like}
  )`;
}

/** Migration 0025's indexed expression, on the alias `c` (the planner matches it column for column). */
const CASE_SEARCH_TEXT_OF_C = sql`lower(coalesce(c.external_case_id, '') || ' ' || coalesce(c.external_applicant_id, '') || ' ' || coalesce(c.external_customer_id, '') || ' ' || coalesce(c.structured_inputs::text, '') || ' ' || coalesce(c.prefill::text, ''))`;

/** Queue rows oldest first (by when the case entered its status), keyset-paged. */
export async function listQueueRows(db: Executor, f: QueueFilter) {
  let q = db
    .selectFrom('cases')
    .select(['case_id', 'queue_row', 'status_changed_at', 'updated_at', 'case_type_id', 'external_case_id', 'external_applicant_id', 'external_customer_id', 'structured_inputs', 'prefill', 'assigned_to', 'created_at'])
    .where('org_id', '=', f.orgId)
    .where('environment', '=', f.environment);
  if (f.queueCategory) q = q.where('queue_category', '=', f.queueCategory);
  if (f.runtimeStatus) q = q.where('runtime_status', '=', f.runtimeStatus as never);
  if (f.caseTypeId) q = q.where('case_type_id', '=', f.caseTypeId);
  if (f.search !== undefined) q = q.where(matchesSearch(f, f.search));
  if (f.assignedTo !== undefined) q = f.assignedTo === null ? q.where('assigned_to', 'is', null) : q.where('assigned_to', '=', f.assignedTo);
  if (f.after) {
    const { sortTimestamp, caseId } = f.after;
    q = q.where((eb) => eb.or([eb('status_changed_at', '>', sortTimestamp), eb.and([eb('status_changed_at', '=', sortTimestamp), eb('case_id', '>', caseId)])]));
  }
  const rows = await q.orderBy('status_changed_at').orderBy('case_id').limit(f.limit + 1).execute();
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

/** How many cases a search finds in each queue category (done included): the tabs' counts while searching. */
export async function countSearchedQueueCategories(db: Executor, tenant: Tenant, search: string): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('cases')
    .select(['queue_category', sql<string>`count(*)`.as('n')])
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where(matchesSearch(tenant, search))
    .groupBy('queue_category')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.queue_category, Number(r.n)]));
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
