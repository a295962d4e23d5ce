import { sql } from 'kysely';
import type { Tx } from '../schema.ts';
import type { Migration } from './index.ts';

/**
 * Rendered case records, so that `GET /api/v1/cases/{id}` is one primary-key read of stored text.
 *
 * Correctness rests on `cases.revision`, which PostgreSQL itself moves whenever anything the
 * record is built from changes: the case row (a BEFORE UPDATE trigger) and its facts, documents,
 * jobs and sessions (statement-level triggers that touch the case row). No code path can forget
 * it, including ones added later. A stored record is served only while its revision equals the
 * case's; a reader that rendered from an older snapshot stores it under the older revision, where
 * it is never served (the upsert also refuses to go backwards).
 *
 * Bumping once per transaction is enough: other sessions see either the state before the
 * transaction (old revision) or after it (new revision). The child triggers therefore skip a case
 * row this transaction has already written (its xmin is the current transaction id), which keeps
 * session creation, which inserts the case and then its facts, jobs and session, at one case
 * write rather than four.
 */
export const caseRecords: Migration = {
  id: '0015_case_records',
  async up(trx) {
    await sql`alter table cases add column revision bigint not null default 1`.execute(trx);
    await sql`
      create table case_records (
        case_id text primary key references cases (case_id) on delete cascade,
        revision bigint not null,
        -- the code fingerprint of the process that rendered it (src/code-fingerprint.ts)
        format text not null,
        body text not null
      )`.execute(trx);
    await sql`
      create function cases_bump_revision() returns trigger language plpgsql as $$
      begin
        new.revision := old.revision + 1;
        return new;
      end $$`.execute(trx);
    await sql`create trigger cases_revision before update on cases for each row execute function cases_bump_revision()`.execute(trx);
    // xmin holds the low 32 bits of the writing transaction's id; txid_current() is epoch-extended.
    for (const [name, table] of [
      ['new', 'new_rows'],
      ['old', 'old_rows'],
    ] as const) {
      await sql`
        create function ${sql.raw(`case_children_touch_${name}`)}() returns trigger language plpgsql as $$
        begin
          update cases c set revision = c.revision
          where c.case_id in (select distinct r.case_id from ${sql.raw(table)} r)
            and c.xmin::text::bigint <> (txid_current() % 4294967296);
          return null;
        end $$`.execute(trx);
    }
    for (const child of ['facts', 'documents', 'case_jobs', 'sessions']) await addCaseRevisionTriggers(trx, child);
  },
};

/**
 * The three statement-level triggers that move `cases.revision` when rows of `table` (which has a
 * `case_id`) are inserted, updated or deleted. Every table a case record is built from needs them.
 */
export async function addCaseRevisionTriggers(trx: Tx, table: string): Promise<void> {
  const t = sql.raw(table);
  await sql`create trigger ${sql.raw(`${table}_touch_case_ins`)} after insert on ${t} referencing new table as new_rows
    for each statement execute function case_children_touch_new()`.execute(trx);
  await sql`create trigger ${sql.raw(`${table}_touch_case_upd`)} after update on ${t} referencing new table as new_rows
    for each statement execute function case_children_touch_new()`.execute(trx);
  await sql`create trigger ${sql.raw(`${table}_touch_case_del`)} after delete on ${t} referencing old table as old_rows
    for each statement execute function case_children_touch_old()`.execute(trx);
}
