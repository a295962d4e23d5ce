import type { Readable } from 'node:stream';
import type { Executor, Tx } from '../storage/schema.ts';

/**
 * Where document bytes and page images live: the database (the default: one place, and erasure in
 * one transaction), or an S3-compatible bucket when DOCUMENT_STORE says so (issue 30). The
 * implementation is `src/storage/document-store.ts`; it reads a document from wherever its row
 * says, so a deployment half way through `dossier documents migrate` serves every document.
 *
 * Writing is two steps because an object store is outside the transaction: `stage` writes the
 * object before the row exists, `attach` records it in the document's transaction. An object
 * whose row never committed is removed by the orphan sweep after a grace period.
 */
export interface BlobStore {
  /** Where new documents go. */
  readonly writesTo: 'database' | 'object';
  /** Writes the bytes where new documents go (an object: encrypted and uploaded now). Throws when the store cannot be reached. */
  stage(docId: string, bytes: Uint8Array): Promise<StagedBlob>;
  /** In the document's transaction: records where its bytes are. */
  attach(tx: Tx, staged: StagedBlob): Promise<void>;
  /** Removes a staged object whose row was not written (best effort: the orphan sweep is the net). */
  discard(staged: StagedBlob): Promise<void>;
  /** The document's bytes, whole (extraction, page drawing). Throws when the store cannot be reached. */
  get(db: Executor, docId: string): Promise<BlobRead>;
  /** The document's bytes as a stream (downloads). Throws when the store cannot be reached. */
  open(db: Executor, docId: string): Promise<BlobStream>;
  /** In the erasure's transaction: forgets the bytes and page images; their objects are deleted once it commits. */
  delete(tx: Tx, docId: string): Promise<void>;
  /** Where a page image of a document goes: beside its original (an object when the original is one). */
  stagePageImage(db: Executor, docId: string, pageIndex: number, image: Uint8Array): Promise<StagedPageImage>;
  /** A stored page image's bytes. */
  readPageImage(db: Executor, row: { doc_id: string; bytes: Buffer | null; object_key: string | null }): Promise<BlobRead>;
}

export type StagedBlob =
  | { place: 'database'; docId: string; bytes: Uint8Array }
  | { place: 'object'; docId: string; objectKey: string; sealedKey: string };

/** The columns a page image row takes: its bytes, or the key of its object. */
export type StagedPageImage = { bytes: Buffer; object_key: null } | { bytes: null; object_key: string };

/**
 * `no_bytes`: the document has no stored file (fetched and never read, or erased).
 * `document_unavailable`: its row names an object the bucket no longer has, or one that does not
 * decrypt — a clear failure of this document, never a 500.
 */
export type BlobMissing = { ok: false; reason: 'no_bytes' | 'document_unavailable' };
export type BlobRead = { ok: true; bytes: Uint8Array } | BlobMissing;
export type BlobStream = { ok: true; stream: Readable; size: number } | BlobMissing;

/**
 * How document objects are encrypted (domain/crypto/document-cipher.ts, bound to the deployment
 * secret by the composition root): the store moves ciphertext and sealed keys, never chooses them.
 */
export interface DocumentCipher {
  /** A fresh data key for a document, and the same key sealed for its blob row. */
  newKey(docId: string): { key: Buffer; sealed: string };
  /** The data key, or undefined when it was sealed under another secret or for another document. */
  openKey(docId: string, sealed: string): Buffer | undefined;
  /** The object's bytes, streamed a segment at a time, and their total size. */
  encrypt(key: Buffer, docId: string, bytes: Uint8Array): { chunks: Iterable<Buffer>; size: number };
  /** A stream that decrypts an object as it arrives; it fails on a wrong key or a tampered or cut object. */
  decrypt(key: Buffer, docId: string): import('node:stream').Transform;
  /** The plaintext size of an object of this size, or undefined when it cannot be one. */
  plaintextSize(objectBytes: number): number | undefined;
}
