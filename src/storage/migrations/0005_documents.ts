import { sql } from 'kysely';
import type { Migration } from './index.ts';

export const documents: Migration = {
  id: '0005_documents',
  async up(trx) {
    // The default blob store: document bytes in the database, so every serve and worker process
    // sees them. Erasure deletes the row.
    await sql`
      create table document_blobs (
        doc_id text primary key references documents (doc_id),
        bytes bytea not null
      )`.execute(trx);

    // The canonical text of each page: every evidence offset refers to it. Erasable.
    await sql`
      create table document_pages (
        doc_id text not null references documents (doc_id),
        page_index integer not null,
        method text not null,
        text text not null,
        ocr_confidence real,
        primary key (doc_id, page_index)
      )`.execute(trx);
  },
};
