import type { Executor, Tx } from '../storage/schema.ts';

/**
 * Where document bytes live. The default keeps them in the database (every serve and worker
 * process sees them, and erasure is one transaction with the rest); an object store could take
 * its place behind this interface.
 */
export interface BlobStore {
  put(tx: Tx, docId: string, bytes: Uint8Array): Promise<void>;
  get(db: Executor, docId: string): Promise<Uint8Array | undefined>;
  delete(tx: Tx, docId: string): Promise<void>;
}

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
