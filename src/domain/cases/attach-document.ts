import type { BlobStore, StagedBlob } from '../../ports/blob-store.ts';
import type { Cause } from '../../ports/enqueuers.ts';
import { enqueueCaseJob } from '../../storage/case-jobs.ts';
import type { CaseRow } from '../../storage/cases.ts';
import { insertDocument } from '../../storage/documents.ts';
import type { Tx } from '../../storage/schema.ts';
import { DOCUMENT_PROCESSING_JOB } from '../documents/processing-job.ts';
import type { SupportedMimeType } from '../documents/types.ts';
import { recordCaseEvent } from './case-events.ts';
import type { WriterDeps } from './case-writer.ts';

/**
 * Bytes already written where new documents go (`BlobStore.stage`, before the transaction: a
 * bucket is outside it). The document takes the staged blob's id.
 */
export interface StoredBytes {
  staged: StagedBlob;
  mimeType: SupportedMimeType;
  byteSize: number;
}

/**
 * Where the document comes from: a URL (`/process`; the worker fetches it, unless it is a sample
 * drawn at once, whose bytes are stored now), or a file the applicant uploaded (or a sample they
 * chose in test mode, whose address is kept).
 */
export type DocumentSource =
  | { kind: 'url'; url: string; stored?: StoredBytes | undefined }
  | { kind: 'upload'; stored: StoredBytes; sampleUrl?: string | undefined };

export interface AttachDocumentInput {
  caseRow: CaseRow;
  documentKind: string | null;
  filename: string | null;
  source: DocumentSource;
  cause: Cause;
}

/**
 * Adds a document to a case, in the caller's transaction: the document row, where its bytes are,
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
  const stored = source.stored;
  const docId = stored?.staged.docId ?? deps.ids.next('doc');
  await insertDocument(tx, {
    doc_id: docId,
    case_id: caseRow.case_id,
    org_id: caseRow.org_id,
    environment: caseRow.environment,
    document_kind: input.documentKind,
    filename: input.filename,
    source: source.kind,
    source_url: source.kind === 'url' ? source.url : (source.sampleUrl ?? null),
    status: 'uploaded',
    failure_reason: null,
    mime_type: stored?.mimeType ?? null,
    byte_size: stored?.byteSize ?? null,
    sha256: null,
    page_count: null,
    created_at: now,
    updated_at: now,
    erased_at: null,
  });
  if (stored) await deps.blobs.attach(tx, stored.staged);
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
