import type { Insertable, Selectable } from 'kysely';
import type { Db, Executor } from './schema.ts';
import type { DocumentPageImagesTable } from './tables/console.ts';
import type { Tenant } from '../ports/tenant.ts';

export type PageImageRow = Selectable<DocumentPageImagesTable>;
export type PageImageMeta = Omit<PageImageRow, 'bytes'>;

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
export async function savePageImage(db: Executor, row: Insertable<DocumentPageImagesTable>): Promise<void> {
  await db.insertInto('document_page_images').values(row).onConflict((oc) => oc.columns(['doc_id', 'page_index']).doNothing()).execute();
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

export async function deletePageImages(db: Executor, docId: string): Promise<void> {
  await db.deleteFrom('document_page_images').where('doc_id', '=', docId).execute();
}

/** The stored text of one page: the canonical text every evidence offset indexes into. */
export async function findPageText(db: Executor, docId: string, pageIndex: number): Promise<string | undefined> {
  const row = await db.selectFrom('document_pages').select('text').where('doc_id', '=', docId).where('page_index', '=', pageIndex).executeTakeFirst();
  return row?.text;
}
