import { randomUUID } from 'node:crypto';
import { findBlobRow, listBlobsToMove, countBlobsToMove, moveBlobRow } from '../../storage/document-blobs.ts';
import type { DocumentStore } from '../../storage/document-store.ts';
import { listPageImagePlaces, movePageImageRow } from '../../storage/page-images.ts';
import type { Db } from '../../storage/schema.ts';
import { afterCommit, inTransaction } from '../../storage/unit-of-work.ts';

export type MoveTarget = 'object' | 'database';
/** `gone`: erased (or moved by another run) meanwhile; `unavailable`: its object is missing or unreadable, so it stays where it is. */
export type MoveOutcome = 'moved' | 'already' | 'gone' | 'unavailable';

/**
 * Moves one document's original and page images to the other store while the service runs.
 * The new copies are written first; one transaction then points the rows at them, guarded on
 * where the rows were found, so a document erased or moved meanwhile is left alone and the new
 * copies are removed. Readers see the old place or the new one, never neither. The old objects
 * (moving back) are deleted only once the rows have committed.
 */
export async function moveDocumentBytes(deps: { db: Db; blobs: DocumentStore }, input: { docId: string; to: MoveTarget }): Promise<MoveOutcome> {
  const objects = deps.blobs.objects;
  if (!objects) throw new Error('moving documents needs DOCUMENT_STORE=s3://bucket/prefix');
  const { docId } = input;
  const row = await findBlobRow(deps.db, docId);
  if (!row) return 'gone';
  const pages = await listPageImagePlaces(deps.db, docId);

  if (input.to === 'object') {
    if (row.object_key !== null) return 'already';
    const { key, sealed } = objects.cipher.newKey(docId);
    const uploaded: string[] = [];
    const original = await objects.upload(docId, key, randomUUID(), row.bytes!);
    uploaded.push(original);
    const pageKeys = new Map<number, string>();
    for (const page of pages) {
      if (page.bytes === null) continue;
      const pageKey = await objects.upload(docId, key, `page-${page.page_index}-${randomUUID()}`, page.bytes);
      uploaded.push(pageKey);
      pageKeys.set(page.page_index, pageKey);
    }
    const moved = await inTransaction(deps.db, async (tx) => {
      if (!(await moveBlobRow(tx, docId, null, { bytes: null, object_key: original, sealed_key: sealed }))) return false;
      for (const [pageIndex, objectKey] of pageKeys) await movePageImageRow(tx, { docId, pageIndex, from: null, to: { bytes: null, object_key: objectKey } });
      return true;
    });
    if (!moved) await objects.bucket.delete(uploaded).catch(() => {});
    return moved ? 'moved' : 'gone';
  }

  if (row.object_key === null) return 'already';
  const original = await objects.download(docId, row.sealed_key!, row.object_key);
  if (!original.ok) return 'unavailable';
  const pageBytes = new Map<number, { from: string; bytes: Buffer }>();
  for (const page of pages) {
    if (page.object_key === null) continue;
    const image = await objects.download(docId, row.sealed_key!, page.object_key);
    // A page image is drawn again on first view: a lost one is not worth keeping the document in the bucket for.
    if (image.ok) pageBytes.set(page.page_index, { from: page.object_key, bytes: Buffer.from(image.bytes) });
  }
  const oldKeys = [row.object_key, ...pages.flatMap((p) => (p.object_key ? [p.object_key] : []))];
  const moved = await inTransaction(deps.db, async (tx) => {
    const inline = Buffer.from(original.bytes.buffer, original.bytes.byteOffset, original.bytes.byteLength);
    if (!(await moveBlobRow(tx, docId, row.object_key, { bytes: inline, object_key: null, sealed_key: null }))) return false;
    for (const [pageIndex, page] of pageBytes) await movePageImageRow(tx, { docId, pageIndex, from: page.from, to: { bytes: page.bytes, object_key: null } });
    // Page images whose object was lost are dropped; they are drawn again when someone looks.
    afterCommit(tx, () => objects.bucket.delete(oldKeys));
    return true;
  });
  return moved ? 'moved' : 'gone';
}

export interface MoveProgress {
  done: number;
  total: number;
}

export interface MoveSummary {
  to: MoveTarget;
  moved: number;
  already: number;
  gone: number;
  unavailable: number;
  /** Documents still not in the target store when the run ended (new ones written elsewhere meanwhile, unavailable ones). */
  remaining: number;
}

/**
 * Moves every document not yet in `to`, in id order, a batch at a time. Resumable: each run
 * starts from what the rows say is left, so an interrupted run is simply run again; moving what
 * has moved already changes nothing.
 */
export async function moveAllDocuments(
  deps: { db: Db; blobs: DocumentStore },
  input: { to: MoveTarget; batch?: number; onProgress?: (p: MoveProgress) => void },
): Promise<MoveSummary> {
  const total = await countBlobsToMove(deps.db, input.to);
  const summary: MoveSummary = { to: input.to, moved: 0, already: 0, gone: 0, unavailable: 0, remaining: 0 };
  let after = '';
  let done = 0;
  input.onProgress?.({ done, total });
  for (;;) {
    const ids = await listBlobsToMove(deps.db, { to: input.to, after, limit: input.batch ?? 100 });
    if (ids.length === 0) break;
    for (const docId of ids) {
      summary[await moveDocumentBytes(deps, { docId, to: input.to })]++;
      done++;
      input.onProgress?.({ done, total: Math.max(total, done) });
    }
    after = ids.at(-1)!;
  }
  summary.remaining = await countBlobsToMove(deps.db, input.to);
  return summary;
}
