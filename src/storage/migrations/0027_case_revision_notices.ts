import { sql } from 'kysely';
import type { Migration } from './index.ts';

/**
 * The case revision trigger (migration 0015) also tells the writing connection which revision it
 * wrote, as a notice (`dossier_case_revision <case id> <revision>`), so the writing process can
 * mirror it where other processes' readers look before trusting text they hold (issue 29:
 * src/storage/database.ts hands the notices over, src/ports/case-revisions.ts mirrors them). A
 * notice costs no round trip: PostgreSQL sends it on the connection before the statement's
 * completion. Every path that moves a revision goes through this trigger, so none can forget it.
 *
 * A deleted case is announced with the largest revision there is, so no held text of it is ever
 * served again (no code path deletes cases today; erasure updates them).
 */
export const caseRevisionNotices: Migration = {
  id: '0027_case_revision_notices',
  async up(trx) {
    await sql`
      create or replace function cases_bump_revision() returns trigger language plpgsql as $$
      begin
        new.revision := old.revision + 1;
        raise notice 'dossier_case_revision % %', new.case_id, new.revision;
        return new;
      end $$`.execute(trx);
    await sql`
      create function cases_deleted_notice() returns trigger language plpgsql as $$
      begin
        raise notice 'dossier_case_revision % %', old.case_id, 9007199254740991;
        return old;
      end $$`.execute(trx);
    await sql`create trigger cases_deleted_notice after delete on cases for each row execute function cases_deleted_notice()`.execute(trx);
  },
};
