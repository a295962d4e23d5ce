import { createHash } from 'node:crypto';
import type { AppContext } from '../deps.ts';
import type { OutboundHttp } from '../../net/safe-fetch.ts';
import type { BlobStore } from '../../ports/blob-store.ts';
import { findLatestSession, type CaseRow, type DocumentRow, type FactRow } from '../../storage/cases.ts';
import { findDocument, findDocumentUnscoped, hasUnfinishedDocuments, savePages, updateDocument } from '../../storage/documents.ts';
import { saveFact, caseFacts } from '../cases/case-facts.ts';
import { toJsonb } from '../../storage/json.ts';
import type { Db, Tx } from '../../storage/schema.ts';
import { inTransaction } from '../../storage/unit-of-work.ts';
import { pinnedDefinition } from '../cases/load-case.ts';
import { recordCaseEvent } from '../cases/case-events.ts';
import type { Cause } from '../../ports/enqueuers.ts';
import { lockCaseRow, transitionCase, type WriterDeps } from '../cases/case-writer.ts';
import { scheduleGateEvaluation } from '../cases/evaluate-case.ts';
import { caseTypeLocales } from '../case-types/translations.ts';
import { chooseOcrLanguages, MAX_DOCUMENT_BYTES, type DocumentExtractor, type OcrLanguages, type PageRenderer } from '../documents/index.ts';
import { prerenderPageImages } from '../console/page-images.ts';
import { extractFacts, factsForDocumentKind, type ExtractedFact } from '../extraction/index.ts';
import { documentFormatOf, type Metrics } from '../../metrics/metrics.ts';
import { SIMULATED_SLOW_READ_MS, waitForSimulatedRead } from '../samples/sample-document.ts';
import { isSampleDocumentUrl } from '../samples/sample-url.ts';
import { tenantOfRow } from '../../ports/tenant.ts';

export interface DocumentJobDeps extends WriterDeps {
  db: Db;
  http: OutboundHttp;
  /** Runs page extraction out of this process; throws when an attempt had to be killed. */
  extractor: DocumentExtractor;
  /** Draws the console's page images ahead of time, out of this process; absent: drawn on first view. */
  renderer?: PageRenderer;
  blobs: BlobStore;
  logger: AppContext['logger'];
  /** Times page extraction by format (/metrics); absent in tests that do not look. */
  metrics?: Pick<Metrics, 'observeExtraction'>;
  /** Fetch deadline for a document (connect + headers + body). */
  fetchTimeoutMs?: number;
  /** How long a `slow` sample document takes to read (test mode; SIMULATED_SLOW_READ_MS). */
  simulatedSlowReadMs?: number;
}

const FETCH_TIMEOUT_MS = 30_000;

/** Reason codes a fetch failure leaves on the document. */
const FETCH_REASONS: Record<string, string> = {
  invalid_url: 'fetch_invalid_url',
  blocked_address: 'fetch_blocked_address',
  timeout: 'fetch_timeout',
  connection_failed: 'fetch_connection_failed',
  redirect: 'fetch_redirected',
  http_status: 'fetch_http_error',
};

/**
 * Processes one document: fetch it (through the SSRF-safe client, which checks the address again
 * at connection time) or read its stored bytes, extract its pages, extract the case type's facts
 * for its kind, and store everything in one transaction with `document.processed`; or mark it
 * `failed` with a reason code and `document.failed`. Then the case moves on when nothing else is
 * processing. Document content never reaches the log.
 */
export async function processDocumentJob(deps: DocumentJobDeps, input: { docId: string }): Promise<void> {
  const { docId } = input;
  const cause: Cause = { traceId: `job:document_processing:${docId}`, idempotencyKey: null };
  const claimed = await inTransaction(deps.db, async (tx) => {
    const found = await findDocumentUnscoped(tx, docId);
    if (!found || (found.status !== 'uploaded' && found.status !== 'processing')) return undefined;
    const row = await lockCaseRow(tx, { tenant: tenantOfRow(found), caseId: found.case_id });
    if (!row) return undefined;
    if (found.status === 'uploaded') {
      await updateDocument(tx, tenantOfRow(found), docId, { status: 'processing', updated_at: deps.clock.now() });
      await recordCaseEvent(tx, deps, { caseRow: row, eventType: 'document.processing', data: { doc_id: docId }, cause });
    }
    return { doc: found, ocrLanguages: await ocrLanguagesOf(tx, row) };
  });
  if (!claimed) return;
  const { doc, ocrLanguages } = claimed;

  const bytes = await obtainBytes(deps, doc);
  if (!bytes.ok) return finishFailed(deps, doc, bytes.reason, cause);
  await waitForSimulatedRead(doc, deps.simulatedSlowReadMs ?? SIMULATED_SLOW_READ_MS);
  const started = performance.now();
  const extracted = await deps.extractor.extractPages({ bytes: bytes.value, ocrLanguages });
  deps.metrics?.observeExtraction({
    // A refused document has no format the sniffer vouched for: it counts as `unknown`.
    format: documentFormatOf(extracted.ok ? extracted.value.mime_type : null),
    outcome: extracted.ok ? 'processed' : 'failed',
    seconds: (performance.now() - started) / 1000,
  });
  if (!extracted.ok) return finishFailed(deps, doc, extracted.reason_code, cause, bytes.fetched ? bytes.value : undefined);

  // A fetched document's bytes are stored before the row that names them commits; a store that
  // is down throws here and the job is retried.
  const staged = bytes.fetched ? await deps.blobs.stage(doc.doc_id, bytes.value) : undefined;
  const evidencePages = await inTransaction(deps.db, async (tx) => {
    const row = await lockCaseRow(tx, { tenant: tenantOfRow(doc), caseId: doc.case_id });
    const current = await findDocument(tx, tenantOfRow(doc), doc.doc_id);
    if (!row || current?.status !== 'processing') return undefined;
    if (staged) await deps.blobs.attach(tx, staged);
    await savePages(tx, doc.doc_id, extracted.value.pages);
    const definition = await pinnedDefinition(tx, row);
    const wanted = doc.document_kind ? factsForDocumentKind(definition.facts, doc.document_kind) : definition.facts;
    const facts = extractFacts({ documentId: doc.doc_id, pages: extracted.value.pages, facts: wanted });
    const changed = await mergeExtractedFacts(tx, deps, row, facts);
    await updateDocument(tx, tenantOfRow(doc), doc.doc_id, {
      status: 'processed',
      mime_type: extracted.value.mime_type,
      byte_size: bytes.value.byteLength,
      sha256: createHash('sha256').update(bytes.value).digest('hex'),
      page_count: extracted.value.pages.length,
      failure_reason: null,
      updated_at: deps.clock.now(),
    });
    await recordCaseEvent(tx, deps, {
      caseRow: row,
      eventType: 'document.processed',
      data: { doc_id: doc.doc_id, page_count: extracted.value.pages.length, fact_ids: changed },
      cause,
    });
    await moveOnWhenProcessed(tx, deps, row, cause);
    return facts.flatMap((f) => f.evidence.filter((e) => e.doc_id === doc.doc_id).map((e) => e.page_index));
  }).catch(async (err: unknown) => {
    if (staged) await deps.blobs.discard(staged);
    throw err;
  });
  if (staged && !evidencePages) await deps.blobs.discard(staged);
  // After the commit (the case has moved on): the pages an operator will look at first are drawn
  // now, in an extraction child, so the case page finds them ready. A failure here costs only that.
  if (evidencePages && deps.renderer && extracted.value.mime_type === 'application/pdf') {
    await prerenderPageImages({ db: deps.db, clock: deps.clock, renderer: deps.renderer, blobs: deps.blobs }, { tenant: tenantOfRow(doc), docId: doc.doc_id, bytes: bytes.value, pageIndexes: evidencePages }).catch((err: unknown) => {
      deps.logger.warn({ doc_id: doc.doc_id, err: err instanceof Error ? err.message : String(err) }, 'page images not drawn ahead of time');
    });
  }
}

/**
 * The languages OCR reads a case's documents in: those of its applicant's session (the latest, or
 * the case's own locale when it has none) and of its case type (documents/ocr/languages.ts).
 */
async function ocrLanguagesOf(tx: Tx, row: CaseRow): Promise<OcrLanguages> {
  const session = await findLatestSession(tx, tenantOfRow(row), row.case_id);
  const definition = await pinnedDefinition(tx, row);
  return chooseOcrLanguages({ sessionLocale: session?.locale ?? row.locale, caseTypeLocales: caseTypeLocales(definition) });
}

/**
 * Gives up on a document whose processing job will not run again (every attempt was killed, or
 * the worker died during each): the document is `failed` with `extraction_aborted`, and the case
 * moves on as for any other failed document.
 */
export async function abandonDocumentJob(deps: Omit<DocumentJobDeps, 'extractor' | 'http'>, input: { docId: string }): Promise<void> {
  const { docId } = input;
  const cause: Cause = { traceId: `job:document_processing:${docId}`, idempotencyKey: null };
  const doc = await findDocumentUnscoped(deps.db, docId);
  if (!doc) return;
  await finishFailed(deps, doc, 'extraction_aborted', cause, undefined, ['uploaded', 'processing']);
}

type Bytes = { ok: true; value: Uint8Array; fetched: boolean } | { ok: false; reason: string };

async function obtainBytes(deps: DocumentJobDeps, doc: DocumentRow): Promise<Bytes> {
  // An upload, or a sample document (drawn and stored when it was asked for): never fetched.
  if (doc.source !== 'url' || !doc.source_url || isSampleDocumentUrl(doc.source_url)) {
    // Extraction reads from the store. A store that is down throws (the job is retried); a row
    // whose object is gone fails the document with `document_unavailable`.
    const stored = await deps.blobs.get(deps.db, doc.doc_id);
    return stored.ok ? { ok: true, value: stored.bytes, fetched: false } : { ok: false, reason: stored.reason === 'no_bytes' ? 'missing_bytes' : stored.reason };
  }
  const answer = await deps.http.fetch({
    url: doc.source_url,
    method: 'GET',
    headers: { accept: 'application/pdf, image/png, image/jpeg, application/vnd.openxmlformats-officedocument.wordprocessingml.document, text/plain;q=0.9, */*;q=0.1' },
    timeoutMs: deps.fetchTimeoutMs ?? FETCH_TIMEOUT_MS,
    maxResponseBytes: MAX_DOCUMENT_BYTES + 1,
  });
  if (!answer.ok) {
    deps.logger.info({ doc_id: doc.doc_id, reason: answer.reason, status: answer.status }, 'document fetch failed');
    return { ok: false, reason: FETCH_REASONS[answer.reason] ?? 'fetch_failed' };
  }
  if (answer.truncated || answer.body.byteLength > MAX_DOCUMENT_BYTES) return { ok: false, reason: 'too_large' };
  return { ok: true, value: new Uint8Array(answer.body), fetched: true };
}

async function finishFailed(
  deps: Omit<DocumentJobDeps, 'extractor' | 'http'>,
  doc: DocumentRow,
  reason: string,
  cause: Cause,
  fetched?: Uint8Array,
  from: readonly string[] = ['processing'],
): Promise<void> {
  await inTransaction(deps.db, async (tx) => {
    const row = await lockCaseRow(tx, { tenant: tenantOfRow(doc), caseId: doc.case_id });
    const current = await findDocument(tx, tenantOfRow(doc), doc.doc_id);
    if (!row || !current || !from.includes(current.status)) return;
    await updateDocument(tx, tenantOfRow(doc), doc.doc_id, {
      status: 'failed',
      failure_reason: reason,
      ...(fetched ? { byte_size: fetched.byteLength, sha256: createHash('sha256').update(fetched).digest('hex') } : {}),
      updated_at: deps.clock.now(),
    });
    await recordCaseEvent(tx, deps, { caseRow: row, eventType: 'document.failed', data: { doc_id: doc.doc_id, reason_code: reason }, cause });
    await moveOnWhenProcessed(tx, deps, row, cause);
  });
}

/** How much a source is trusted: people outrank documents, which outrank form answers. */
const SOURCE_RANK: Record<string, number> = { operator: 4, applicant_follow_up: 3, document_extraction: 2, applicant_input: 1, prefill: 0 };

/**
 * Extracted facts meet the stored ones: a person's value is never overwritten; a resolved
 * extraction replaces anything less certain; between two documents the better anchor match wins.
 */
async function mergeExtractedFacts(tx: Tx, deps: WriterDeps, row: CaseRow, extracted: readonly ExtractedFact[]): Promise<string[]> {
  const stored = new Map((await caseFacts(tx, row)).map((f) => [f.fact_id, f]));
  const changed: string[] = [];
  for (const fact of extracted) {
    const current = stored.get(fact.fact_id);
    if (!current || !shouldTake(current, fact)) continue;
    await saveFact(tx, row, fact.fact_id, {
        status: fact.status,
        value: fact.value,
        candidate_id: fact.candidate_id,
        anchor_match_quality: fact.anchor_match_quality,
        source: 'document_extraction',
        reason_codes: toJsonb(fact.reason_codes),
        provenance: toJsonb(fact.provenance),
        evidence: toJsonb(fact.evidence),
        verification_metadata: toJsonb([]),
        updated_at: deps.clock.now(),
      });
    changed.push(fact.fact_id);
  }
  return changed;
}

function shouldTake(current: FactRow, fact: ExtractedFact): boolean {
  const rank = SOURCE_RANK[current.source ?? ''] ?? -1;
  if (rank > SOURCE_RANK.document_extraction!) return false;
  if (current.status !== 'resolved') return fact.status === 'resolved' || current.status === 'pending';
  if (fact.status !== 'resolved') return false;
  if (rank < SOURCE_RANK.document_extraction!) return true;
  return fact.anchor_match_quality > (current.anchor_match_quality ?? 0);
}

/**
 * When no document of the case is still uploaded or processing, the case leaves `processing`:
 * to the gates if the intake was submitted (or the case came from /process and has no
 * applicant), else back to the applicant.
 */
async function moveOnWhenProcessed(tx: Tx, deps: WriterDeps, row: CaseRow, cause: Cause): Promise<void> {
  if (row.runtime_status !== 'processing') return;
  if (await hasUnfinishedDocuments(tx, tenantOfRow(row), row.case_id)) return;
  const session = await findLatestSession(tx, tenantOfRow(row), row.case_id);
  const readyForGates = row.origin === 'process' || session?.status === 'submitted';
  if (readyForGates) await scheduleGateEvaluation(tx, deps, { row, cause });
  else await transitionCase(tx, deps, { row, to: 'intake_in_progress', cause });
}
