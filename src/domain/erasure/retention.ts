import { findCasesDueForDocumentErasureUnscoped } from '../../storage/document-retention.ts';
import type { Config } from '../../config.ts';
import { eraseCase, type EraseDeps } from './erase.ts';

/**
 * Document retention: erases the documents of cases whose retention ran out after completion,
 * through the same operation as POST /api/v1/cases/{id}/erasure, so exactly the same data goes
 * and the events (`document.erased`, `case.erased`) say `reason: "retention"`. One transaction
 * per case. Returns how many cases were erased; a full batch means more may be due.
 */
export async function eraseExpiredDocuments(
  deps: EraseDeps & { config: Pick<Config, 'documentRetentionDays'> },
  input: { limit: number },
): Promise<{ cases: number; documents: number }> {
  const now = deps.clock.now();
  const due = await findCasesDueForDocumentErasureUnscoped(deps.db, { now, defaultDays: deps.config.documentRetentionDays ?? null, limit: input.limit });
  let documents = 0;
  for (const c of due) {
    const erased = await eraseCase(deps, {
      tenant: { orgId: c.org_id, environment: c.environment },
      caseId: c.case_id,
      cause: { traceId: `retention:${now.toISOString()}`, idempotencyKey: null },
      reason: 'retention',
    });
    // Only a case that vanished meanwhile fails here; the next sweep no longer finds it.
    if (erased.ok) documents += c.documents;
  }
  return { cases: due.length, documents };
}
