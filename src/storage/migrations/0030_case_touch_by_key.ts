import { sql } from 'kysely';
import type { Migration } from './index.ts';

/**
 * The child triggers of migration 0015 (facts, documents, jobs and sessions move their case's
 * revision), made cheap for the two cases that dominate (issue 29, part D):
 *
 *   - A case created in this transaction returns at once: `create_session_at_once` (migration
 *     0029) says so with a transaction-local setting, `dossier.creating_case`, around its inserts
 *     of the new case's facts and session. The case row is new, so its revision is 1 whatever
 *     its children do, which is what the xmin test below would also conclude, a lookup later.
 *   - Otherwise each case is touched by its key, one primary-key update per distinct case of the
 *     statement. The single `update … where case_id in (select … from new_rows)` was planned
 *     once per connection without knowing how many rows the transition table holds, and
 *     measured 0.9 ms a call under the creation load (pg_stat_user_functions), most of a
 *     creation's trigger time.
 */
export const caseTouchByKey: Migration = {
  id: '0030_case_touch_by_key',
  async up(trx) {
    for (const [name, table] of [
      ['new', 'new_rows'],
      ['old', 'old_rows'],
    ] as const) {
      await sql`
        create or replace function ${sql.raw(`case_children_touch_${name}`)}() returns trigger language plpgsql as $$
        declare
          id text;
        begin
          if current_setting('dossier.creating_case', true) = 'on' then return null; end if;
          for id in select distinct r.case_id from ${sql.raw(table)} r loop
            -- xmin holds the low 32 bits of the writing transaction's id; txid_current() is epoch-extended.
            update cases c set revision = c.revision
              where c.case_id = id and c.xmin::text::bigint <> (txid_current() % 4294967296);
          end loop;
          return null;
        end $$`.execute(trx);
    }
  },
};
