import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { Executor } from './schema.ts';
import { PREPARED } from './database.ts';
import type { CasesTable } from './tables/cases.ts';
import type { Tenant } from '../ports/tenant.ts';

export interface QueueFilter extends Tenant {
  queueCategory?: string;
  runtimeStatus?: string;
  caseTypeId?: string;
  /** An operator id: their cases; null: cases nobody has taken. */
  assignedTo?: string | null;
  after?: { sortTimestamp: Date; caseId: string };
  limit: number;
}

/** The columns a queue page shows of a case. */
const QUEUE_ROW_COLUMNS = ['case_id', 'queue_row', 'status_changed_at', 'updated_at', 'case_type_id', 'external_case_id', 'external_applicant_id', 'external_customer_id', 'structured_inputs', 'prefill', 'assigned_to', 'created_at'] as const;

/** Queue rows oldest first (by when the case entered its status), keyset-paged. */
export async function listQueueRows(db: Executor, f: QueueFilter) {
  let q = db.selectFrom('cases').select(QUEUE_ROW_COLUMNS).where('org_id', '=', f.orgId).where('environment', '=', f.environment);
  if (f.queueCategory) q = q.where('queue_category', '=', f.queueCategory);
  if (f.runtimeStatus) q = q.where('runtime_status', '=', f.runtimeStatus as never);
  if (f.caseTypeId) q = q.where('case_type_id', '=', f.caseTypeId);
  if (f.assignedTo !== undefined) q = f.assignedTo === null ? q.where('assigned_to', 'is', null) : q.where('assigned_to', '=', f.assignedTo);
  if (f.after) {
    const { sortTimestamp, caseId } = f.after;
    q = q.where((eb) => eb.or([eb('status_changed_at', '>', sortTimestamp), eb.and([eb('status_changed_at', '=', sortTimestamp), eb('case_id', '>', caseId)])]));
  }
  const rows = await q.orderBy('status_changed_at').orderBy('case_id').limit(f.limit + 1).execute();
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

export type QueueRow = Pick<Selectable<CasesTable>, (typeof QUEUE_ROW_COLUMNS)[number]>;

/** LIKE's `%part%`, with the part's own wildcards and backslashes taken literally. */
function containing(part: string): string {
  return `%${part.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * What the trigram indexes are asked for: the part of the term that tells cases apart. A GIN
 * index answers a pattern by walking the entries of every trigram in it, so a trigram that many
 * cases share costs the scan most while narrowing it least, and ids and emails carry such parts:
 * a prefix ("loan-4711"), a domain ("@example.com"). So: the term's longest run of three or more
 * digits when it has one; else, for an email, its part up to the "@"; else the whole term.
 * Measured at 100,000 cases: "loan-4711" 17–20 ms in the index, "4711" 0.04 ms; an email 13–16
 * ms, its part up to the "@" 0.4 ms. The whole term is confirmed on every candidate, so this
 * changes the speed, never the result.
 */
function indexedPart(term: string): string {
  const digits = (term.match(/[0-9]{3,}/g) ?? []).reduce((longest, run) => (run.length > longest.length ? run : longest), '');
  if (digits) return digits;
  const at = term.indexOf('@');
  return at >= 3 ? term.slice(0, at + 1) : term;
}

/**
 * A queue search: the page of matching cases (filters, order and keyset as listQueueRows) and how
 * many cases the search finds in each queue category (filters aside: the tabs' counts), from one
 * statement that finds the candidates once.
 *
 * A case matches by an id exactly, or by a part of one of its external ids, of a value of the
 * applicant's answers or prefill (values only, never the keys: "name" does not match every case),
 * or of a fact's value; in any letter case, LIKE's wildcards in the term taken literally. The
 * arms on the case row are one scan whose condition ORs them, so PostgreSQL ORs their indexes'
 * bitmaps and reads a case two of them find once: the primary key and external-id indexes for the
 * exact ids, the trigram index on `cases.search_text` (migration 0028: external ids and values,
 * lowered, one per line) for a part of them. The cases of the facts found by the trigram index on
 * their lowered values (0025) are a second scan, united with the first. (Inside the OR, as
 * `case_id = any (array(…))`, they were 10–15 % faster on PostgreSQL, but a scan without the
 * index, the embedded database's, then compares every case with every id found: a fact value
 * search took 350 ms there against 135 for the others. `union all` less the first scan's cases
 * let PostgreSQL plan a parallel append for the prepared statement's generic plan.) Each "part
 * of" is confirmed by `strpos` on the same text. The embedded database has no pg_trgm and scans.
 */
export async function searchQueue(db: Executor, f: QueueFilter, search: string): Promise<{ rows: QueueRow[]; hasMore: boolean; counts: Record<string, number> }> {
  const result = await searchQueueStatement(f, search).execute(db);
  const counts = Object.fromEntries(Object.entries(result.rows[0]?.x_counts ?? {}).map(([category, n]) => [category, Number(n)]));
  const rows = result.rows.filter((r) => r.case_id != null).map(({ x_counts: _, ...row }) => row as QueueRow);
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit, counts };
}

/** searchQueue's statement (bench/console.ts prints its plan). */
export function searchQueueStatement(f: QueueFilter, search: string) {
  const term = search;
  const like = containing(indexedPart(term));
  const tenantOf = (alias: string) => sql`${sql.ref(`${alias}.org_id`)} = ${f.orgId} and ${sql.ref(`${alias}.environment`)} = ${f.environment}`;
  // search_text puts one value per line: a term with a line break in it could span two values,
  // so there (only a hand-made link gets one) each value is looked at on its own as well.
  const withinOneValue = term.includes('\n')
    ? sql`and (exists (select 1 from (values (c.external_case_id), (c.external_applicant_id), (c.external_customer_id)) v (value) where strpos(lower(v.value), lower(${term})) > 0)
        or exists (select 1 from jsonb_each_text(c.structured_inputs) v where strpos(lower(v.value), lower(${term})) > 0)
        or exists (select 1 from jsonb_each_text(c.prefill) v where strpos(lower(v.value), lower(${term})) > 0))`
    : sql``;
  // The arms on the case row: PostgreSQL ORs their indexes' bitmaps, so a case two of them find is read once.
  const onCaseRow = sql`c.case_id = ${term} or c.external_case_id = ${term} or c.external_applicant_id = ${term} or c.external_customer_id = ${term}
        or (c.search_text like lower(${like}) and strpos(c.search_text, lower(${term})) > 0 ${withinOneValue})`;
  const hit = sql`c.case_id, c.queue_category, c.status_changed_at, c.runtime_status, c.case_type_id, c.assigned_to`;
  const onPage: RawBuilder<unknown>[] = [];
  if (f.queueCategory) onPage.push(sql`h.queue_category = ${f.queueCategory}`);
  if (f.runtimeStatus) onPage.push(sql`h.runtime_status = ${f.runtimeStatus}`);
  if (f.caseTypeId) onPage.push(sql`h.case_type_id = ${f.caseTypeId}`);
  if (f.assignedTo !== undefined) onPage.push(f.assignedTo === null ? sql`h.assigned_to is null` : sql`h.assigned_to = ${f.assignedTo}`);
  if (f.after) {
    const { sortTimestamp, caseId } = f.after;
    onPage.push(sql`(h.status_changed_at > ${sortTimestamp} or (h.status_changed_at = ${sortTimestamp} and h.case_id > ${caseId}))`);
  }
  // Planned once per connection (PREPARED) when the index can serve the term: then every plan is
  // the same bitmap scans. A term without three letters or digits in a row has no trigram, and
  // only a plan made for it sees that a scan of the table beats reading the whole index.
  const prepared = /[\p{L}\p{N}]{3}/u.test(indexedPart(term)) ? sql.raw(PREPARED) : sql``;
  return sql<Partial<QueueRow> & { x_counts: Record<string, number | string> | null }>`${prepared}
    with hits as materialized (
      select ${hit} from cases c where ${tenantOf('c')} and (${onCaseRow})
      union
      select ${hit} from cases c where ${tenantOf('c')}
        and c.case_id in (select f.case_id from facts f where ${tenantOf('f')} and lower(f.value) like lower(${like}) and strpos(lower(f.value), lower(${term})) > 0)
    ),
    page as (
      select h.case_id, h.status_changed_at from hits h ${onPage.length > 0 ? sql`where ${sql.join(onPage, sql` and `)}` : sql``}
      order by h.status_changed_at, h.case_id limit ${f.limit + 1}
    )
    select (select json_object_agg(n.queue_category, n.count) from (select queue_category, count(*) from hits group by queue_category) n) as x_counts,
      ${sql.join(QUEUE_ROW_COLUMNS.map((c) => sql.ref(`c.${c}`)))}
    from (select) as one
      left join (page p join cases c on c.case_id = p.case_id) on true
    order by p.status_changed_at, p.case_id`;
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
