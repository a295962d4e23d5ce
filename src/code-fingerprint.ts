import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A short hash of this process's source tree (src/**, read once at start: ~2 ms here). Anything
 * stored in a rendered form, such as case records, is tagged with it, so that after a deploy a
 * process never serves text rendered by other code, and no one has to remember to bump a format
 * number when a renderer changes. During a rolling deploy old and new processes each re-render
 * for themselves; both stay correct.
 */
function fingerprintOf(root: string): string {
  const hash = createHash('sha256');
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') || f.endsWith('.js'))
    .sort();
  for (const file of files) hash.update(file).update('\0').update(readFileSync(join(root, file))).update('\0');
  return hash.digest('base64url').slice(0, 12);
}

export const CODE_FINGERPRINT = fingerprintOf(fileURLToPath(new URL('.', import.meta.url)));
