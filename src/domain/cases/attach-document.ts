import type { BlobStore } from '../../ports/blob-store.ts';
import type { Cause } from '../../ports/enqueuers.ts';
import { enqueueCaseJob } from '../../storage/case-jobs.ts';
import type { CaseRow } from '../../storage/cases.ts';
import { insertDocument } from '../../storage/documents.ts';
import type { Tx } from '../../storage/schema.ts';
import { DOCUMENT_PROCESSING_JOB } from '../documents/processing-job.ts';
import type { SupportedMimeType } from '../documents/types.ts';
import { recordCaseEvent } from './case-events.ts';
import type { WriterDeps } from './case-writer.ts';

/** Where the document comes from: a URL the worker fetches (`/process`), or bytes the applicant uploaded. */
export type DocumentSource =
  | { kind: 'url'; url: string }
  | { kind: 'upload'; bytes: Uint8Array; mimeType: SupportedMimeType };

export interface AttachDocumentInput {
  caseRow: CaseRow;
  documentKind: string | null;
  filename: string | null;
  source: DocumentSource;
  cause: Cause;
}

/**
 * Adds a document to a case, in the caller's transaction: the document row, its bytes (uploads),
 * the `document.uploaded` event and the `document_processing` job commit together, so a document
 * is never recorded without the job that reads it. The callers decide whether the case may take a
 * document and move it out of intake (`/process` before attaching, the applicant's upload after:
 * the order of their two events is part of what each already returns).
 */
export async function attachDocument(
  tx: Tx,
  deps: WriterDeps & { blobs: BlobStore },
  input: AttachDocumentInput,
): Promise<{ docId: string }> {
  const { caseRow, source, cause } = input;
  const now = deps.clock.now();
  const docId = deps.ids.next('doc');
  await insertDocument(tx, {
    doc_id: docId,
    case_id: caseRow.case_id,
    org_id: caseRow.org_id,
    environment: caseRow.environment,
    document_kind: input.documentKind,
    filename: input.filename,
    source: source.kind,
    source_url: source.kind === 'url' ? source.url : null,
    status: 'uploaded',
    failure_reason: null,
    mime_type: source.kind === 'upload' ? source.mimeType : null,
    byte_size: source.kind === 'upload' ? source.bytes.byteLength : null,
    sha256: null,
    page_count: null,
    created_at: now,
    updated_at: now,
    erased_at: null,
  });
  if (source.kind === 'upload') await deps.blobs.put(tx, docId, source.bytes);
  await recordCaseEvent(tx, deps, {
    caseRow,
    eventType: 'document.uploaded',
    data: { doc_id: docId, source: source.kind, document_kind: input.documentKind },
    cause,
  });
  await enqueueCaseJob(tx, {
    jobId: deps.ids.next('job'),
    caseId: caseRow.case_id,
    orgId: caseRow.org_id,
    environment: caseRow.environment,
    kind: DOCUMENT_PROCESSING_JOB,
    subjectId: docId,
    runAfter: now,
  });
  return { docId };
}
