import type { Selectable } from 'kysely';
import type { Executor } from './schema.ts';
import type { DocumentBlobsTable } from './tables/cases.ts';

/** Where one document's bytes are: inline (`bytes`) or an object (`object_key`, `sealed_key`). */
export type BlobRow = Selectable<DocumentBlobsTable>;
export type BlobPlace = { bytes: Buffer; object_key: null; sealed_key: null } | { bytes: null; object_key: string; sealed_key: string };

export async function findBlobRow(db: Executor, docId: string): Promise<BlobRow | undefined> {
  return db.selectFrom('document_blobs').selectAll().where('doc_id', '=', docId).executeTakeFirst();
}

/** Where a document's bytes are, without reading them (TOASTed bytes are not fetched). */
export async function findBlobObject(db: Executor, docId: string): Promise<{ object_key: string | null; sealed_key: string | null } | undefined> {
  return db.selectFrom('document_blobs').select(['object_key', 'sealed_key']).where('doc_id', '=', docId).executeTakeFirst();
}

/** Records where a document's bytes are; a second write (a fetched document read again) replaces the first. */
export async function saveBlobRow(db: Executor, docId: string, place: BlobPlace): Promise<void> {
  await db
    .insertInto('document_blobs')
    .values({ doc_id: docId, ...place })
    .onConflict((oc) => oc.column('doc_id').doUpdateSet(place))
    .execute();
}

export async function deleteBlobRow(db: Executor, docId: string): Promise<void> {
  await db.deleteFrom('document_blobs').where('doc_id', '=', docId).execute();
}

/**
 * Moves a blob row to its new place only if it is still where the mover found it: `from` is its
 * object key (null: inline). False when the document was erased or moved meanwhile.
 */
export async function moveBlobRow(db: Executor, docId: string, from: string | null, to: BlobPlace): Promise<boolean> {
  const moved = await db
    .updateTable('document_blobs')
    .set(to)
    .where('doc_id', '=', docId)
    .where((eb) => (from === null ? eb('object_key', 'is', null) : eb('object_key', '=', from)))
    .executeTakeFirst();
  return moved.numUpdatedRows > 0n;
}

/** Documents whose bytes are not yet where `to` says, in id order after `after`: `dossier documents migrate`'s work list. */
export async function listBlobsToMove(db: Executor, input: { to: 'object' | 'database'; after: string; limit: number }): Promise<string[]> {
  const rows = await db
    .selectFrom('document_blobs')
    .select('doc_id')
    .where('doc_id', '>', input.after)
    .where('object_key', input.to === 'object' ? 'is' : 'is not', null)
    .orderBy('doc_id')
    .limit(input.limit)
    .execute();
  return rows.map((r) => r.doc_id);
}

export async function countBlobsToMove(db: Executor, to: 'object' | 'database'): Promise<number> {
  const row = await db
    .selectFrom('document_blobs')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('object_key', to === 'object' ? 'is' : 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Every object key the database still refers to for these documents (originals and page images): the orphan sweep keeps these. */
export async function referencedObjectKeys(db: Executor, docIds: readonly string[]): Promise<Set<string>> {
  if (docIds.length === 0) return new Set();
  const originals = await db.selectFrom('document_blobs').select('object_key').where('doc_id', 'in', docIds).where('object_key', 'is not', null).execute();
  const pages = await db.selectFrom('document_page_images').select('object_key').where('doc_id', 'in', docIds).where('object_key', 'is not', null).execute();
  return new Set([...originals, ...pages].map((r) => r.object_key!));
}
