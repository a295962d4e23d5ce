import { z } from 'zod';
import { moveAllDocuments, type MoveProgress } from '../../domain/documents/move-document.ts';
import { cliError, type Output } from '../output.ts';
import type { AdminCommand } from './command.ts';

const migrateFlags = z.object({
  to: z.enum(['s3', 'database'], { error: '--to must be s3 or database' }),
  batch: z.coerce.number().int().min(1).max(10_000).default(100),
});

/** A one-line bar on a terminal, redrawn in place; nothing on a pipe or in a log (the summary says it all). */
function progressBar(out: Output): ((p: MoveProgress) => void) | undefined {
  if (!out.isTTY) return undefined;
  let last = 0;
  return ({ done, total }) => {
    const now = Date.now();
    if (done !== total && now - last < 100) return;
    last = now;
    const width = 30;
    const filled = total === 0 ? width : Math.round((done / total) * width);
    out.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} documents`);
    if (done === total) out.write('\n');
  };
}

/**
 * `dossier documents migrate --to s3|database`: moves existing originals and page images between
 * the database and the bucket of DOCUMENT_STORE while the service runs (issue 30). Resumable and
 * idempotent: it moves what the rows say is not there yet, so an interrupted run is run again.
 * Going to s3: set DOCUMENT_STORE first (new documents then go there), then migrate the old ones.
 * Going back: set DOCUMENT_STORE_WRITES=database (objects stay readable), migrate, then unset
 * DOCUMENT_STORE once `remaining` is 0.
 */
export const DOCUMENT_COMMANDS: readonly AdminCommand[] = [
  {
    path: ['documents', 'migrate'],
    usage: 'dossier documents migrate --to s3|database [--batch N]',
    options: { to: { type: 'string' }, batch: { type: 'string' } },
    flags: migrateFlags,
    async run(ctx, values, _positionals, _runtime, output) {
      const flags = migrateFlags.parse(values);
      if (!ctx.blobs.objects) return cliError('precondition_required', 'dossier documents migrate needs DOCUMENT_STORE=s3://bucket/prefix (and S3_ENDPOINT, S3_REGION, AWS credentials) in both directions.');
      const to = flags.to === 's3' ? 'object' : 'database';
      const started = performance.now();
      const onProgress = progressBar(output.stderr);
      const summary = await moveAllDocuments(ctx, { to, batch: flags.batch, ...(onProgress ? { onProgress } : {}) });
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      return {
        ...summary,
        to: flags.to,
        duration_ms: Math.round(performance.now() - started),
        summary: `moved ${summary.moved} documents to ${flags.to} in ${seconds} s (${summary.already} already there, ${summary.gone} erased meanwhile, ${summary.unavailable} unavailable); ${summary.remaining} not in ${flags.to}`,
      };
    },
  },
];
