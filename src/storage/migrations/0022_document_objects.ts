import { sql } from 'kysely';
import type { Migration } from './index.ts';

/**
 * Document bytes may live in an S3-compatible bucket (DOCUMENT_STORE, issue 30). A blob row then
 * holds the object's key and the document's data key sealed under the deployment secret instead
 * of the bytes; a page image row the key of its object. Exactly one of the two per row, so a row
 * half moved by `dossier documents migrate` cannot exist.
 */
export const documentObjects: Migration = {
  id: '0022_document_objects',
  async up(trx) {
    await sql`alter table document_blobs alter column bytes drop not null`.execute(trx);
    await sql`alter table document_blobs add column object_key text, add column sealed_key text`.execute(trx);
    await sql`alter table document_blobs add constraint document_blobs_one_place check ((bytes is null) <> (object_key is null) and (object_key is null) = (sealed_key is null))`.execute(trx);
    await sql`alter table document_page_images alter column bytes drop not null`.execute(trx);
    await sql`alter table document_page_images add column object_key text`.execute(trx);
    await sql`alter table document_page_images add constraint document_page_images_one_place check ((bytes is null) <> (object_key is null))`.execute(trx);
  },
};
