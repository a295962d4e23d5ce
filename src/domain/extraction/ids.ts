import { createHash } from 'node:crypto';

/**
 * Deterministic ids for candidates and evidence: the same document, fact and character span give
 * the same id on every run, so re-extracting a document (a retry, a new library version that
 * changes nothing) neither duplicates evidence nor orphans references to it. 96 bits of SHA-256:
 * collisions need ~2^48 spans, far beyond one case.
 */
export function deterministicId(prefix: 'cand' | 'ev', ...parts: ReadonlyArray<string | number>): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(String(part)).update('\u0000');
  return `${prefix}_${hash.digest('hex').slice(0, 24)}`;
}
