import type { Clock } from '../../ports/clock.ts';
import { referencedObjectKeys } from '../../storage/document-blobs.ts';
import type { DocumentStore } from '../../storage/document-store.ts';
import type { Executor } from '../../storage/schema.ts';

/**
 * How old an object no row names must be before the sweep deletes it. An object is written before
 * its row commits; the gap is one transaction (milliseconds) or, for a fetched document, the
 * extraction's final commit. An hour is far beyond either, and the bucket's own clock (which
 * stamps LastModified) may be off from ours by minutes.
 */
export const ORPHAN_GRACE_MS = 60 * 60_000;

/**
 * One page of the orphan sweep: lists up to `max` objects of the document folders after `startAfter`
 * and deletes those old enough that no blob or page image row names: an upload whose transaction
 * rolled back or whose process died, an erased document whose objects could not be deleted at
 * commit, an object replaced by a later write. `next` is where the following page starts
 * (undefined: the listing reached the end).
 */
export async function sweepOrphanObjects(
  deps: { db: Executor; clock: Clock; blobs: DocumentStore },
  input: { startAfter?: string | undefined; max?: number } = {},
): Promise<{ scanned: number; deleted: number; next: string | undefined }> {
  const objects = deps.blobs.objects;
  if (!objects) return { scanned: 0, deleted: 0, next: undefined };
  const page = await objects.bucket.list(objects.root, { ...(input.startAfter ? { startAfter: input.startAfter } : {}), max: input.max ?? 1000 });
  const docIds = [...new Set(page.objects.map((o) => objects.docIdOf(o.key)).filter((id): id is string => id !== undefined))];
  const kept = await referencedObjectKeys(deps.db, docIds);
  const cutoff = deps.clock.now().getTime() - ORPHAN_GRACE_MS;
  const orphans = page.objects.filter((o) => !kept.has(o.key) && o.lastModified.getTime() < cutoff).map((o) => o.key);
  if (orphans.length > 0) await objects.bucket.delete(orphans);
  return { scanned: page.objects.length, deleted: orphans.length, next: page.more ? page.objects.at(-1)?.key : undefined };
}
