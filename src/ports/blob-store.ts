import type { Executor, Tx } from '../storage/schema.ts';

/**
 * Where document bytes live. The default keeps them in the database (every serve and worker
 * process sees them, and erasure is one transaction with the rest); an object store could take
 * its place behind this interface. The database implementation is `src/storage/document-blobs.ts`.
 */
export interface BlobStore {
  put(tx: Tx, docId: string, bytes: Uint8Array): Promise<void>;
  get(db: Executor, docId: string): Promise<Uint8Array | undefined>;
  delete(tx: Tx, docId: string): Promise<void>;
}
