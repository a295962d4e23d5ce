import { sql } from 'kysely';
import type { Migration } from './index.ts';

export const caseEngine: Migration = {
  id: '0004_case_engine',
  async up(trx) {
    // The queue position, written by the projection function whenever the case changes, so the
    // queue can be filtered and sorted in SQL. The case read computes the same projection live.
    await sql`alter table cases add column queue_category text not null default 'intake'`.execute(trx);
    await sql`alter table cases add column queue_status text not null default 'waiting_on_applicant'`.execute(trx);
    await sql`alter table cases add column queue_row jsonb not null default '{}'`.execute(trx);
    await sql`create index cases_queue on cases (org_id, environment, queue_category, status_changed_at, case_id)`.execute(trx);
    await sql`create index cases_queue_sort on cases (org_id, environment, status_changed_at, case_id)`.execute(trx);

    await sql`
      create table follow_up_questions (
        question_id text primary key,
        case_id text not null references cases (case_id),
        org_id text not null,
        environment text not null,
        fact_id text not null,
        prompt text not null,
        status text not null check (status in ('open', 'answered', 'withdrawn')),
        answer text,
        created_at timestamptz not null,
        answered_at timestamptz
      )`.execute(trx);
    await sql`create index follow_up_questions_case on follow_up_questions (case_id, status)`.execute(trx);

    // Operator corrections keep history: every change of a fact by a person, with before and after.
    await sql`
      create table fact_corrections (
        correction_id text primary key,
        case_id text not null references cases (case_id),
        org_id text not null,
        environment text not null,
        fact_id text not null,
        previous_value text,
        previous_status text not null,
        previous_source text,
        new_value text,
        new_status text not null,
        reason text,
        actor text not null,
        created_at timestamptz not null
      )`.execute(trx);
    await sql`create index fact_corrections_case on fact_corrections (case_id, fact_id, created_at)`.execute(trx);
  },
};
