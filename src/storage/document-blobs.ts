import type { BlobStore } from '../ports/blob-store.ts';

/** Document bytes in the `document_blobs` table: the default blob store (see ports/blob-store.ts). */
export const databaseBlobStore: BlobStore = {
  async put(tx, docId, bytes) {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    await tx.insertInto('document_blobs').values({ doc_id: docId, bytes: buffer }).onConflict((oc) => oc.column('doc_id').doUpdateSet({ bytes: buffer })).execute();
  },
  async get(db, docId) {
    const row = await db.selectFrom('document_blobs').select('bytes').where('doc_id', '=', docId).executeTakeFirst();
    return row ? new Uint8Array(row.bytes) : undefined;
  },
  async delete(tx, docId) {
    await tx.deleteFrom('document_blobs').where('doc_id', '=', docId).execute();
  },
};
