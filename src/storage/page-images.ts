import type { Insertable, Selectable } from 'kysely';
import type { Db, Executor } from './schema.ts';
import type { DocumentPageImagesTable } from './tables/console.ts';
import type { Tenant } from '../ports/tenant.ts';

export type PageImageRow = Selectable<DocumentPageImagesTable>;
export type PageImageMeta = Omit<PageImageRow, 'bytes' | 'object_key'>;

export async function findPageImageMeta(db: Executor, docId: string, pageIndex: number): Promise<PageImageMeta | undefined> {
  return db
    .selectFrom('document_page_images')
    .select(['doc_id', 'page_index', 'content_type', 'width_px', 'height_px', 'page_width', 'page_height', 'page_unit', 'created_at'])
    .where('doc_id', '=', docId)
    .where('page_index', '=', pageIndex)
    .executeTakeFirst();
}

export async function findPageImage(db: Executor, docId: string, pageIndex: number): Promise<PageImageRow | undefined> {
  return db.selectFrom('document_page_images').selectAll().where('doc_id', '=', docId).where('page_index', '=', pageIndex).executeTakeFirst();
}

/** Two viewers asking for the same page at once both render it; the first stored copy wins. */
export async function savePageImage(db: Executor, row: Insertable<DocumentPageImagesTable>): Promise<boolean> {
  const saved = await db.insertInto('document_page_images').values(row).onConflict((oc) => oc.columns(['doc_id', 'page_index']).doNothing()).returning('page_index').executeTakeFirst();
  return saved !== undefined;
}

/**
 * Stores page images drawn ahead of time, unless the document was erased meanwhile: its row is
 * read FOR SHARE, so an erasure (which updates that row and deletes the images in one
 * transaction) runs either wholly before (nothing is stored) or after (it deletes these too).
 */
export async function savePageImagesOfLiveDocument(db: Db, tenant: Tenant, docId: string, rows: readonly Insertable<DocumentPageImagesTable>[]): Promise<boolean> {
  if (rows.length === 0) return false;
  return db.transaction().execute(async (tx) => {
    const doc = await tx
      .selectFrom('documents')
      .select(['erased_at'])
      .where('doc_id', '=', docId)
      .where('org_id', '=', tenant.orgId)
      .where('environment', '=', tenant.environment)
      .forShare()
      .executeTakeFirst();
    if (!doc || doc.erased_at !== null) return false;
    await tx.insertInto('document_page_images').values([...rows]).onConflict((oc) => oc.columns(['doc_id', 'page_index']).doNothing()).execute();
    return true;
  });
}

/** Where each stored page image of a document is: `dossier documents migrate` moves them with their original. */
export async function listPageImagePlaces(db: Executor, docId: string): Promise<{ page_index: number; bytes: Buffer | null; object_key: string | null }[]> {
  return db.selectFrom('document_page_images').select(['page_index', 'bytes', 'object_key']).where('doc_id', '=', docId).orderBy('page_index').execute();
}

/** Moves one page image row to its new place, only if it is still where the mover found it (`from`: its object key, null when inline). */
export async function movePageImageRow(
  db: Executor,
  input: { docId: string; pageIndex: number; from: string | null; to: { bytes: Buffer; object_key: null } | { bytes: null; object_key: string } },
): Promise<boolean> {
  const moved = await db
    .updateTable('document_page_images')
    .set(input.to)
    .where('doc_id', '=', input.docId)
    .where('page_index', '=', input.pageIndex)
    .where((eb) => (input.from === null ? eb('object_key', 'is', null) : eb('object_key', '=', input.from)))
    .executeTakeFirst();
  return moved.numUpdatedRows > 0n;
}

export async function deletePageImages(db: Executor, docId: string): Promise<void> {
  await db.deleteFrom('document_page_images').where('doc_id', '=', docId).execute();
}

/** The stored text of one page: the canonical text every evidence offset indexes into. */
export async function findPageText(db: Executor, docId: string, pageIndex: number): Promise<string | undefined> {
  const row = await db.selectFrom('document_pages').select('text').where('doc_id', '=', docId).where('page_index', '=', pageIndex).executeTakeFirst();
  return row?.text;
}
