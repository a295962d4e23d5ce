import { sql } from 'kysely';
import type { Migration } from './index.ts';

/**
 * Issue 27 §3. Assignment: a case may be taken by one operator ("Assign to me"); the queue filters
 * on it. Search: on PostgreSQL, trigram indexes (pg_trgm) serve the queue search's "part of"
 * arms, an indexed prefilter the exact check then confirms (storage/queue.ts). pg_trgm is a
 * trusted extension, so the database owner may create it; where it is already installed (in any
 * schema) it is used from there. The embedded database has no pg_trgm (PGlite ships it as an
 * optional bundle we do not load), so there the search scans the workspace's cases, which is what
 * a one-process deployment holds (docs/decisions.md). Migration 0028 replaces the case-row index
 * with one on a stored column of values only (`cases.search_text`).
 */
export const caseAssignmentAndSearch: Migration = {
  id: '0025_case_assignment_and_search',
  async up(trx) {
    await sql`alter table cases add column assigned_to text references operators (operator_id)`.execute(trx);
    await sql`alter table cases add column assigned_at timestamptz`.execute(trx);
    await sql`alter table cases add constraint cases_assigned_pair check ((assigned_to is null) = (assigned_at is null))`.execute(trx);
    await sql`create index cases_assigned on cases (org_id, environment, assigned_to, status_changed_at) where assigned_to is not null`.execute(trx);

    const trgm = await trigramSchema(trx);
    if (trgm === null) return;
    const ops = sql`${sql.id(trgm)}.gin_trgm_ops`;
    await sql`create index cases_search_trgm on cases using gin ((${CASE_SEARCH_TEXT}) ${ops})`.execute(trx);
    await sql`create index facts_value_trgm on facts using gin ((lower(value)) ${ops})`.execute(trx);
  },
};

/** The text the trigram index covers: what `matchesSearch` looks into on the case row, lowered. Keys included: the exact check after it looks at values only. */
const CASE_SEARCH_TEXT = sql`lower(coalesce(external_case_id, '') || ' ' || coalesce(external_applicant_id, '') || ' ' || coalesce(external_customer_id, '') || ' ' || coalesce(structured_inputs::text, '') || ' ' || coalesce(prefill::text, ''))`;

type Tx = Parameters<Migration['up']>[0];

/** The schema pg_trgm lives in, installing it here when it is available but not yet installed; null without it. */
export async function trigramSchema(trx: Tx): Promise<string | null> {
  const installed = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(trx);
  if (installed.rows[0]) return installed.rows[0].schema;
  const available = await sql`select 1 from pg_available_extensions where name = 'pg_trgm'`.execute(trx);
  if (available.rows.length === 0) return null;
  // In `public` where there is one: an extension belongs to one schema, and a deployment (or a
  // test) that drops its own schema must not take the extension other schemas' indexes use.
  const hasPublic = await sql`select 1 from pg_namespace where nspname = 'public'`.execute(trx);
  const schema = hasPublic.rows.length > 0 ? 'public' : (await sql<{ schema: string }>`select current_schema() as schema`.execute(trx)).rows[0]!.schema;
  await sql`create extension pg_trgm schema ${sql.id(schema)}`.execute(trx);
  return schema;
}
