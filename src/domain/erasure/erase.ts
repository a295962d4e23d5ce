import type { BlobStore } from '../../ports/blob-store.ts';
import type { CaseRow } from '../../storage/cases.ts';
import { updateCaseRow } from '../../storage/cases.ts';
import { deletePages, findDocument, selectCaseDocuments, updateDocument } from '../../storage/documents.ts';
import { forgetDocumentSourcedPreviousValues } from '../../storage/fact-corrections.ts';
import { selectCaseFacts } from '../../storage/facts.ts';
import { saveFact } from '../cases/case-facts.ts';
import { toJsonb } from '../../storage/json.ts';
import type { Db, Tx } from '../../storage/schema.ts';
import { inTransactionResult } from '../../storage/unit-of-work.ts';
import { recordCaseEvent } from '../cases/case-events.ts';
import type { Cause } from '../../ports/enqueuers.ts';
import type { Evidence, GateRuleResult, Provenance } from '../cases/case-state.ts';
import { lockCaseRow, type WriterDeps } from '../cases/case-writer.ts';
import { caseNotFound } from '../cases/read-case.ts';
import { fail, ok, type Result } from '../errors.ts';
import { tenantOfRow, type Tenant } from '../../ports/tenant.ts';

export type EraseDeps = WriterDeps & { db: Db; blobs: BlobStore };

/** Why documents were erased, recorded in the erasure events: a request (API, dashboard) or the retention sweep. */
export type ErasureReason = 'request' | 'retention';

/**
 * Erasure (contract §9): a document's bytes, its page text, and every value, quote and piece of
 * evidence derived from it are destroyed; its id, status (`erased`), timestamps and the audit
 * events remain. Repeatable: erasing what is already erased changes nothing and answers the same.
 */
export async function eraseDocument(
  deps: EraseDeps,
  input: { tenant: Tenant; caseId: string; docId: string; cause: Cause; actor?: string },
): Promise<Result<{ doc_id: string; case_id: string; status: 'erased'; erased_at: string }>> {
  const { tenant } = input;
  return inTransactionResult(deps.db, async (tx) => {
    const row = await lockCaseRow(tx, { tenant, caseId: input.caseId });
    if (!row) return caseNotFound(input.caseId);
    const doc = await findDocument(tx, tenant, input.docId, row.case_id);
    if (!doc) return fail('not_found', `Case ${row.case_id} has no document ${input.docId}.`);
    const erasedAt = doc.erased_at ?? (await eraseDocuments(tx, deps, row, [doc.doc_id], input.cause, 'request', input.actor));
    return ok({ doc_id: doc.doc_id, case_id: row.case_id, status: 'erased' as const, erased_at: erasedAt.toISOString() });
  });
}

/** Erases every document of a case and everything derived from them. */
export async function eraseCase(
  deps: EraseDeps,
  input: { tenant: Tenant; caseId: string; cause: Cause; reason?: ErasureReason; actor?: string },
): Promise<Result<{ case_id: string; erased_document_ids: string[]; erased_at: string }>> {
  const { tenant } = input;
  const reason = input.reason ?? 'request';
  return inTransactionResult(deps.db, async (tx) => {
    const row = await lockCaseRow(tx, { tenant, caseId: input.caseId });
    if (!row) return caseNotFound(input.caseId);
    const docs = await selectCaseDocuments(tx, tenantOfRow(row), row.case_id);
    const pending = docs.filter((d) => d.erased_at === null).map((d) => d.doc_id);
    const now = deps.clock.now();
    if (pending.length > 0) await eraseDocuments(tx, deps, row, pending, input.cause, reason, input.actor);
    await recordCaseEvent(tx, deps, {
      caseRow: row,
      eventType: 'case.erased',
      data: { doc_ids: docs.map((d) => d.doc_id), newly_erased: pending.length, reason, ...actorOf(input.actor) },
      cause: input.cause,
    });
    return ok({ case_id: row.case_id, erased_document_ids: docs.map((d) => d.doc_id), erased_at: now.toISOString() });
  });
}

/** Who asked (an operator or API key id), kept on the erasure events; the retention sweep has none. */
function actorOf(actor: string | undefined): { actor?: string } {
  return actor ? { actor } : {};
}

async function eraseDocuments(tx: Tx, deps: EraseDeps, row: CaseRow, docIds: string[], cause: Cause, reason: ErasureReason, actor?: string): Promise<Date> {
  const now = deps.clock.now();
  const erased = new Set(docIds);
  for (const docId of docIds) {
    // The bytes and page images (rows now; objects in a bucket once this commits).
    await deps.blobs.delete(tx, docId);
    await deletePages(tx, docId);
    // The name and address it was fetched from can carry personal data too; the hash identifies the content.
    await updateDocument(tx, tenantOfRow(row), docId, { status: 'erased', erased_at: now, updated_at: now, filename: null, source_url: null, sha256: null });
  }

  const facts = await selectCaseFacts(tx, tenantOfRow(row), row.case_id);
  const derived = facts.filter(
    (f) =>
      (f.evidence as Evidence[]).some((e) => erased.has(e.doc_id)) ||
      (f.provenance as Provenance[]).some((p) => erased.has(p.document_id)),
  );
  for (const fact of derived) {
    await saveFact(tx, row, fact.fact_id, {
        status: 'pending',
        value: null,
        candidate_id: null,
        anchor_match_quality: null,
        source: null,
        reason_codes: toJsonb(['erased']),
        provenance: toJsonb([]),
        evidence: toJsonb([]),
        verification_metadata: toJsonb([]),
        updated_at: now,
      });
  }
  const derivedIds = derived.map((f) => f.fact_id);
  // Correction history keeps who and when, not values that came from documents. It does not record
  // which document a replaced value came from, so every document-sourced one of the case goes.
  await forgetDocumentSourcedPreviousValues(tx, tenantOfRow(row), row.case_id);
  // Rule details quote values (dates, normalised names): keep the outcome, drop the detail.
  const scrubbed = (row.gate_results as GateRuleResult[]).map((r) => (r.fact_ids.some((id) => derivedIds.includes(id)) ? { ...r, detail: { erased: true } } : r));
  await updateCaseRow(tx, tenantOfRow(row), row.case_id, { gate_results: toJsonb(scrubbed), updated_at: now });
  for (const docId of docIds) await recordCaseEvent(tx, deps, {
    caseRow: row,
    eventType: 'document.erased',
    data: { doc_id: docId, fact_ids: derivedIds, reason, ...actorOf(actor) },
    cause,
  });
  return now;
}
