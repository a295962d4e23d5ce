import { sql } from 'kysely';
import type { Migration } from './index.ts';

/** The operator console: cached page images, and the indexes its queue search and overview read. */
export const console_: Migration = {
  id: '0012_console',
  async up(trx) {
    await sql`
      create table document_page_images (
        doc_id text not null references documents (doc_id),
        page_index integer not null,
        content_type text not null,
        width_px integer not null,
        height_px integer not null,
        page_width double precision not null,
        page_height double precision not null,
        page_unit text not null check (page_unit in ('pt', 'px')),
        bytes bytea not null,
        created_at timestamptz not null,
        primary key (doc_id, page_index)
      )`.execute(trx);
    // The queue's search box looks cases up by any of their ids (external_case_id has its own unique index).
    await sql`create index if not exists cases_external_applicant on cases (org_id, environment, external_applicant_id) where external_applicant_id is not null`.execute(trx);
    await sql`create index if not exists cases_external_customer on cases (org_id, environment, external_customer_id) where external_customer_id is not null`.execute(trx);
    // The overview's 14-day chart counts cases created per day.
    await sql`create index if not exists cases_created on cases (org_id, environment, created_at)`.execute(trx);
  },
};
