import { sweepOrphanObjects } from '../domain/documents/orphan-objects.ts';
import { eraseExpiredDocuments } from '../domain/erasure/retention.ts';
import { pruneFinishedDeliveriesUnscoped } from '../storage/webhooks/retention.ts';
import type { JobTask } from './worker.ts';

const DAY_MS = 86_400_000;

/**
 * Prunes webhook deliveries and their attempts older than WEBHOOK_RETENTION_DAYS, a batch per
 * transaction. A full batch runs the next one at once; an idle sweep looks again in ten minutes.
 * Every worker runs it; SKIP LOCKED lets them share the backlog instead of queueing on each other.
 */
export function webhookRetentionSweep(options: { batch?: number } = {}): JobTask {
  const batch = options.batch ?? 500;
  return {
    name: 'webhook-retention',
    idleMs: 10 * 60_000,
    async run(ctx) {
      const before = new Date(ctx.clock.now().getTime() - ctx.config.webhookRetentionDays * DAY_MS);
      const pruned = await pruneFinishedDeliveriesUnscoped(ctx.db, { before, limit: batch });
      ctx.metrics.countRetentionDeletions('webhook_deliveries', pruned.deliveries);
      ctx.metrics.countRetentionDeletions('webhook_delivery_attempts', pruned.attempts);
      return pruned.deliveries >= batch ? pruned.deliveries : 0;
    },
  };
}

/**
 * Erases documents whose retention ran out (a case type's `retention.documents_days`, else
 * DOCUMENT_RETENTION_DAYS; neither: kept). Each case is erased in its own transaction, so a batch
 * of 20 holds no case lock for long.
 */
export function documentRetentionSweep(options: { batch?: number } = {}): JobTask {
  const batch = options.batch ?? 20;
  return {
    name: 'document-retention',
    idleMs: 10 * 60_000,
    async run(ctx) {
      const erased = await eraseExpiredDocuments(ctx, { limit: batch });
      ctx.metrics.countRetentionDeletions('documents', erased.documents);
      return erased.cases >= batch ? erased.cases : 0;
    },
  };
}

/**
 * Removes objects of the document store that no row names, after ORPHAN_GRACE_MS (see
 * domain/documents/orphan-objects.ts). Walks the bucket a page of 1,000 keys per run, straight
 * through, then rests an hour: a bucket of a million documents is one walk of ~1,000 list calls
 * per hour. The cursor lives in this process only: a restart walks from the start again, which
 * costs a walk and loses nothing. Nothing to do without DOCUMENT_STORE=s3://….
 */
export function orphanObjectSweep(): JobTask {
  let cursor: string | undefined;
  return {
    name: 'document-object-orphans',
    idleMs: 60 * 60_000,
    async run(ctx) {
      if (!ctx.blobs.objects) return 0;
      const page = await sweepOrphanObjects(ctx, { startAfter: cursor });
      cursor = page.next;
      ctx.metrics.countRetentionDeletions('document_objects', page.deleted);
      return page.next ? Math.max(1, page.scanned) : 0;
    },
  };
}
