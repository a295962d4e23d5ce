import { sql } from 'kysely';
import type { Migration } from './index.ts';
import { trigramSchema } from './0025_case_assignment_and_search.ts';

/**
 * Issue 27 §3, speed. The queue search's "part of" arm on the case row reads one stored column,
 * `cases.search_text`: the external ids and the values (never the keys) of the answers and
 * prefill, lowered, one per line. PostgreSQL computes it on every insert and update (a generated
 * column), so no write path can forget it, and a search no longer takes each candidate's JSON
 * apart (`jsonb_each_text`) to confirm it. On PostgreSQL a trigram index on it replaces 0025's
 * index on the JSON text (keys included, so every case held the trigrams of "full_name"); the
 * embedded database scans the column (docs/decisions.md, "Search (§3)").
 */
export const caseSearchText: Migration = {
  id: '0028_case_search_text',
  async up(trx) {
    // Immutable (a generated column's expression must be): the values of an object in key order,
    // one per line; anything but an object gives nothing rather than failing the write.
    await sql`
      create function case_search_values(j jsonb) returns text language sql immutable parallel safe as $$
        select string_agg(value, E'\n') from jsonb_each_text(case when jsonb_typeof(j) = 'object' then j else '{}'::jsonb end)
      $$`.execute(trx);
    await sql`
      alter table cases add column search_text text not null generated always as (lower(
        coalesce(external_case_id, '') || E'\n' || coalesce(external_applicant_id, '') || E'\n' || coalesce(external_customer_id, '') || E'\n'
        || coalesce(case_search_values(structured_inputs), '') || E'\n' || coalesce(case_search_values(prefill), ''))) stored`.execute(trx);
    await sql`drop index if exists cases_search_trgm`.execute(trx);
    const trgm = await trigramSchema(trx);
    if (trgm === null) return;
    await sql`create index cases_search_text_trgm on cases using gin (search_text ${sql.id(trgm)}.gin_trgm_ops)`.execute(trx);
  },
};
