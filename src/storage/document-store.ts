import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { DocumentStoreConfig } from '../config.ts';
import type { BlobRead, BlobStore, BlobStream, DocumentCipher, StagedBlob, StagedPageImage } from '../ports/blob-store.ts';
import { deleteBlobRow, findBlobObject, findBlobRow, saveBlobRow } from './document-blobs.ts';
import { createObjectBucket, type ObjectBucket } from './object-bucket.ts';
import { deletePageImages } from './page-images.ts';
import type { Executor } from './schema.ts';
import { afterCommit } from './unit-of-work.ts';

/** The store plus what only operations use: the bucket (sweep, migration) and closing its client. */
export interface DocumentStore extends BlobStore {
  /** The bucket and key layout, when DOCUMENT_STORE names one. */
  readonly objects: DocumentObjects | undefined;
  close(): void;
}

export interface DocumentObjects {
  bucket: ObjectBucket;
  /** Every document object's key starts with this (`<prefix>/docs/`). */
  root: string;
  /** The folder of one document's objects: its original and page images. */
  folderOf(docId: string): string;
  /** The document id an object key belongs to, or undefined for a key outside the layout. */
  docIdOf(key: string): string | undefined;
  /** Encrypts and uploads `bytes` as a new object of the document, under its data key. */
  upload(docId: string, dataKey: Buffer, name: string, bytes: Uint8Array): Promise<string>;
  /** Downloads and decrypts a whole object; `document_unavailable` when it is gone or does not decrypt. */
  download(docId: string, sealedKey: string, objectKey: string): Promise<BlobRead>;
  /** Deletes every object of these documents (erasure, retention). */
  deleteDocuments(docIds: readonly string[]): Promise<void>;
  cipher: DocumentCipher;
}

const MISSING = { ok: false, reason: 'no_bytes' } as const;
const UNAVAILABLE = { ok: false, reason: 'document_unavailable' } as const;

/**
 * The document store of DOCUMENT_STORE: the database alone, or the database plus a bucket. Reads
 * follow the row (inline bytes or an object), so both kinds of document are served whatever new
 * documents do; writes go where `writesTo` says.
 */
export function createDocumentStore(input: { config: DocumentStoreConfig; cipher: DocumentCipher; logger: Logger; bucket?: ObjectBucket }): DocumentStore {
  const { config, cipher, logger } = input;
  const objects = config.kind === 's3' ? documentObjects(input.bucket ?? createObjectBucket(config), config.prefix, cipher) : undefined;
  const writesTo = config.kind === 's3' && config.writes === 'object' ? 'object' : 'database';

  const unreachable = (docId: string): BlobRead => {
    // Rows name objects but no bucket is configured: DOCUMENT_STORE was unset before moving back.
    logger.error({ doc_id: docId }, 'document bytes are in an object store but DOCUMENT_STORE names none');
    return UNAVAILABLE;
  };

  return {
    writesTo,
    objects,
    async stage(docId, bytes): Promise<StagedBlob> {
      if (writesTo === 'database' || !objects) return { place: 'database', docId, bytes };
      const { key, sealed } = cipher.newKey(docId);
      const objectKey = await objects.upload(docId, key, randomUUID(), bytes);
      return { place: 'object', docId, objectKey, sealedKey: sealed };
    },
    async attach(tx, staged) {
      if (staged.place === 'database') {
        await saveBlobRow(tx, staged.docId, { bytes: Buffer.from(staged.bytes.buffer, staged.bytes.byteOffset, staged.bytes.byteLength), object_key: null, sealed_key: null });
      } else {
        await saveBlobRow(tx, staged.docId, { bytes: null, object_key: staged.objectKey, sealed_key: staged.sealedKey });
      }
    },
    async discard(staged) {
      if (staged.place !== 'object' || !objects) return;
      await objects.bucket.delete([staged.objectKey]).catch((err: unknown) => {
        logger.warn({ doc_id: staged.docId, err: err instanceof Error ? err.message : String(err) }, 'staged document object not removed; the orphan sweep will');
      });
    },
    async get(db, docId) {
      const row = await findBlobRow(db, docId);
      if (!row) return MISSING;
      if (row.bytes) return { ok: true, bytes: new Uint8Array(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength) };
      if (!objects) return unreachable(docId);
      return objects.download(docId, row.sealed_key!, row.object_key!);
    },
    async open(db, docId): Promise<BlobStream> {
      const place = await findBlobObject(db, docId);
      if (!place) return MISSING;
      if (place.object_key === null) {
        const read = await this.get(db, docId);
        return read.ok ? { ok: true, stream: Readable.from([Buffer.from(read.bytes)]), size: read.bytes.byteLength } : read;
      }
      if (!objects) return unreachable(docId) as BlobStream;
      const key = cipher.openKey(docId, place.sealed_key!);
      const object = key ? await objects.bucket.get(place.object_key) : undefined;
      const size = object ? cipher.plaintextSize(object.length) : undefined;
      if (!key || !object || size === undefined) {
        object?.body.destroy();
        logger.error({ doc_id: docId }, 'document object missing or unreadable');
        return UNAVAILABLE;
      }
      // A tag that fails mid-download ends the response early: the client sees a broken
      // download, never a file with a forged tail.
      return { ok: true, stream: object.body.pipe(cipher.decrypt(key, docId)), size };
    },
    async delete(tx, docId) {
      await deleteBlobRow(tx, docId);
      await deletePageImages(tx, docId);
      if (objects) {
        afterCommit(tx, () =>
          objects.deleteDocuments([docId]).catch((err: unknown) => {
            logger.warn({ doc_id: docId, err: err instanceof Error ? err.message : String(err) }, 'erased document objects not deleted yet; the orphan sweep will');
          }),
        );
      }
    },
    async stagePageImage(db, docId, pageIndex, image): Promise<StagedPageImage> {
      const place = await findBlobObject(db, docId);
      if (!objects || !place || place.object_key === null) return { bytes: Buffer.from(image.buffer, image.byteOffset, image.byteLength), object_key: null };
      const key = cipher.openKey(docId, place.sealed_key!);
      if (!key) throw new Error(`the data key of ${docId} does not open under this deployment secret`);
      return { bytes: null, object_key: await objects.upload(docId, key, `page-${pageIndex}-${randomUUID()}`, image) };
    },
    async readPageImage(db, row) {
      if (row.bytes) return { ok: true, bytes: row.bytes };
      if (!objects) return unreachable(row.doc_id);
      const place = await findBlobObject(db, row.doc_id);
      if (!place?.sealed_key) return UNAVAILABLE;
      return objects.download(row.doc_id, place.sealed_key, row.object_key!);
    },
    close() {
      objects?.bucket.close();
    },
  };
}

function documentObjects(bucket: ObjectBucket, prefix: string, cipher: DocumentCipher): DocumentObjects {
  const root = `${prefix === '' ? '' : `${prefix}/`}docs/`;
  const self: DocumentObjects = {
    bucket,
    root,
    folderOf: (docId) => `${root}${docId}/`,
    docIdOf(key) {
      if (!key.startsWith(root)) return undefined;
      const rest = key.slice(root.length);
      const slash = rest.indexOf('/');
      return slash > 0 ? rest.slice(0, slash) : undefined;
    },
    async upload(docId, dataKey, name, bytes) {
      const key = `${self.folderOf(docId)}${name}`;
      const sealed = cipher.encrypt(dataKey, docId, bytes);
      await bucket.put(key, Readable.from(sealed.chunks), sealed.size);
      return key;
    },
    async download(docId, sealedKey, objectKey) {
      const key = cipher.openKey(docId, sealedKey);
      const object = key ? await bucket.get(objectKey) : undefined;
      const size = object ? cipher.plaintextSize(object.length) : undefined;
      if (!key || !object || size === undefined) {
        object?.body.destroy();
        return UNAVAILABLE;
      }
      // One buffer of the plaintext's size, filled segment by segment: the only whole copy.
      const out = Buffer.allocUnsafe(size);
      let at = 0;
      try {
        for await (const part of object.body.pipe(cipher.decrypt(key, docId)) as AsyncIterable<Buffer>) {
          if (at + part.length > size) return UNAVAILABLE;
          part.copy(out, at);
          at += part.length;
        }
      } catch (err) {
        if (err instanceof Error && err.name === 'DocumentCipherError') return UNAVAILABLE;
        throw err;
      }
      return at === size ? { ok: true, bytes: new Uint8Array(out.buffer, out.byteOffset, size) } : UNAVAILABLE;
    },
    async deleteDocuments(docIds) {
      for (const docId of docIds) {
        let startAfter: string | undefined;
        for (;;) {
          const page = await bucket.list(self.folderOf(docId), startAfter ? { startAfter } : {});
          if (page.objects.length > 0) await bucket.delete(page.objects.map((o) => o.key));
          if (!page.more) break;
          startAfter = page.objects.at(-1)?.key;
        }
      }
    },
    cipher,
  };
  return self;
}
