import type { BlobStore } from '../../ports/blob-store.ts';
import { findApplicantPage, type ApplicantDocumentRow } from '../../storage/applicant-pages.ts';
import type { SessionRow } from '../../storage/cases.ts';
import { countLiveDocumentsOfKind, findDocument } from '../../storage/documents.ts';
import type { Db } from '../../storage/schema.ts';
import type { RuntimeStatus, SessionStatus } from '../../storage/tables/cases.ts';
import { inTransactionResult } from '../../storage/unit-of-work.ts';
import { loadPinnedDefinition } from '../case-types/case-types.ts';
import type { CaseTypeDefinition, UploadNode } from '../case-types/definition.ts';
import { attachDocument } from '../cases/attach-document.ts';
import type { Cause } from '../../ports/enqueuers.ts';
import { lockCaseRow, transitionCase, type WriterDeps } from '../cases/case-writer.ts';
import { pinnedDefinition } from '../cases/load-case.ts';
import { MAX_DOCUMENT_BYTES, sniffDocumentType } from '../documents/index.ts';
import { pdfNeedsPassword } from '../documents/pdf.ts';
import { eraseDocument } from '../erasure/erase.ts';
import { fail, ok, type Result } from '../errors.ts';
import { authorizeApplicant, refusedProof, wellFormedProof, type ApplicantProof } from './applicant-access.ts';
import { sessionTokenMatches } from '../sessions/session-token.ts';
import { tenantOfRow } from '../../ports/tenant.ts';

type IntakeDeps = WriterDeps & { db: Db; blobs: BlobStore };

export type ApplicantDocument = ApplicantDocumentRow;

export interface ApplicantFollowUp {
  fact_id: string;
  label: string;
  /** The document the fact was looked for in, when one was read. */
  filename: string | null;
}

/** Everything the applicant app shows for one session: read with the link's token, never without. */
export interface ApplicantIntake {
  session_id: string;
  case_id: string;
  /** The integrator's own reference for the case, shown to the applicant when given. */
  external_case_id: string | null;
  org_id: string;
  status: SessionStatus;
  expired: boolean;
  expires_at: Date;
  return_url: string | null;
  locale: string | null;
  environment: 'test' | 'live';
  org_name: string;
  runtime_status: RuntimeStatus;
  definition: CaseTypeDefinition;
  /** What the form shows: pre-fill, overlaid by what the applicant saved. */
  answers: Record<string, unknown>;
  /** Only what the applicant saved (a step is done once its fields were saved). */
  saved: Record<string, unknown>;
  documents: ApplicantDocument[];
  follow_ups: ApplicantFollowUp[];
}

/**
 * Reads the applicant's view of a session: one query for the session, its case, the org's name,
 * the files and the open questions (`findApplicantPage`), and the pinned workflow definition from
 * the process's cache (versions never change). The token is checked in constant time against the
 * session's hash; an unknown session and a wrong token are the same `forbidden`. An expired session
 * is still read (the app shows a 410 page and the return link). Reads take no lock and no
 * transaction: a page shows what was committed when it was read (measured: the locked transaction
 * cost a third of a page's time, and the five separate reads it had before most of the rest).
 */
export async function loadApplicantIntake(deps: { db: Db; clock: WriterDeps['clock'] }, proof: ApplicantProof): Promise<Result<ApplicantIntake>> {
  if (!wellFormedProof(proof)) return refusedProof();
  const row = await findApplicantPage(deps.db, proof.sessionId);
  if (!row || !sessionTokenMatches(proof.token, row.token_hash)) return refusedProof();
  const definition = await loadPinnedDefinition(deps, { tenant: tenantOfRow(row), caseTypeId: row.case_type_id, workflowVersion: row.workflow_version });
  return ok({
    session_id: row.session_id,
    case_id: row.case_id,
    external_case_id: row.external_case_id,
    org_id: row.org_id,
    status: row.status,
    expired: row.status === 'expired' || row.expires_at <= deps.clock.now(),
    expires_at: row.expires_at,
    return_url: row.return_url,
    locale: row.locale,
    environment: row.environment,
    org_name: row.org_name,
    runtime_status: row.runtime_status,
    definition,
    answers: { ...row.prefill, ...row.structured_inputs },
    saved: row.structured_inputs,
    documents: row.documents,
    follow_ups: followUpsOf(definition, row.open_follow_ups, row.documents),
  });
}

function followUpsOf(definition: CaseTypeDefinition, factIds: readonly string[], documents: readonly ApplicantDocument[]): ApplicantFollowUp[] {
  return factIds.map((factId) => {
    const fact = definition.facts.find((f) => f.fact_id === factId);
    // The document the fact would have come from: the first processed one of the fact's kinds.
    const doc = documents.find((d) => d.status === 'processed' && d.document_kind !== null && (fact?.document_kinds ?? []).includes(d.document_kind));
    return { fact_id: factId, label: fact?.label ?? factId, filename: doc?.filename ?? null };
  });
}

/** Why an upload was refused, each with its own message in the app (GOV.UK's specific upload errors). */
export type UploadProblem = 'wrong_type' | 'too_big' | 'empty' | 'password_protected' | 'too_many_files' | 'closed';

export type UploadOutcome = { kind: 'uploaded'; doc_id: string } | { kind: 'refused'; problem: UploadProblem };

/** The document kinds of a definition's upload nodes. */
export function uploadKind(definition: CaseTypeDefinition, documentKind: string): UploadNode['documents'][number] | undefined {
  for (const node of definition.workflow.nodes) {
    if (node.type !== 'upload') continue;
    const found = node.documents.find((d) => d.document_kind === documentKind);
    if (found) return found;
  }
  return undefined;
}

/**
 * The applicant uploads one file for a document kind. The type is sniffed from the bytes (as
 * `/process` does), checked against the kind's `accept` and `max_files`, a PDF that needs a
 * password is refused at once (it could never be read), and the bytes go through `BlobStore` with
 * a `document_processing` job queued in the same transaction, so reading starts while the
 * applicant carries on. `replaces` names a file of this intake that could not be read: it is
 * erased in the same transaction once the new file is accepted (a refused file replaces nothing).
 */
export async function uploadApplicantDocument(
  deps: IntakeDeps,
  input: ApplicantProof & {
    documentKind: string;
    filename: string;
    bytes: Uint8Array;
    traceId: string;
    replaces?: string | undefined;
    /** A sample document's address (samples/sample-url.ts): test sessions only, a PDF whatever the kind accepts. */
    sampleUrl?: string | undefined;
  },
): Promise<Result<UploadOutcome>> {
  const refused = (problem: UploadProblem) => ok<UploadOutcome>({ kind: 'refused', problem });
  const sniffed = await sniffDocumentType(input.bytes);
  const problem: UploadProblem | undefined = sniffed.ok
    ? undefined
    : sniffed.reason_code === 'too_large' ? 'too_big' : sniffed.reason_code === 'empty_document' ? 'empty' : 'wrong_type';
  const mime = sniffed.ok ? sniffed.value : null;
  const locked = mime === 'application/pdf' && (await pdfNeedsPassword(input.bytes));
  const now = deps.clock.now();
  // The object is written before its row commits (a bucket is outside the transaction), and
  // only for a file that can be accepted; a store that is down throws here, before anything is
  // written, and the applicant is asked to try again.
  const docId = deps.ids.next('doc');
  const staged = !problem && !locked ? await deps.blobs.stage(docId, input.bytes) : undefined;
  const outcome = await inTransactionResult(deps.db, async (tx) => {
    const authorized = await authorizeApplicant(tx, input);
    if (!authorized.ok) return authorized;
    const session = authorized.value;
    if (!writable(session, now)) return refused('closed');
    if (input.sampleUrl !== undefined && session.environment !== 'test') return fail('invalid_request', 'Sample documents are for test mode only.');
    let row = await lockCaseRow(tx, { tenant: tenantOfRow(session), caseId: session.case_id });
    if (!row) return fail('not_found', 'No such case.');
    const definition = await pinnedDefinition(tx, row);
    const kind = uploadKind(definition, input.documentKind);
    if (!kind) return fail('invalid_request', `This intake asks for no document of kind ${input.documentKind}.`);
    if (problem) return refused(problem);
    if (!mime || (!(kind.accept as readonly string[]).includes(mime) && input.sampleUrl === undefined)) return refused('wrong_type');
    if (locked) return refused('password_protected');
    if ((await countLiveDocumentsOfKind(tx, tenantOfRow(row), row.case_id, input.documentKind)) >= kind.max_files) return refused('too_many_files');

    const cause: Cause = { traceId: input.traceId, idempotencyKey: null, sessionId: session.session_id };
    if (input.replaces) {
      const old = await findDocument(tx, tenantOfRow(row), input.replaces, row.case_id);
      if (old && old.case_id === row.case_id && old.source === 'upload' && old.status === 'failed') {
        const erased = await eraseDocument({ ...deps, db: tx }, { tenant: { orgId: row.org_id, environment: row.environment }, caseId: row.case_id, docId: old.doc_id, cause });
        if (!erased.ok) return erased;
        // Erasure wrote to the case (event, facts): carry on from the row as it is now.
        row = (await lockCaseRow(tx, { tenant: tenantOfRow(row), caseId: row.case_id }))!;
      }
    }
    await attachDocument(tx, deps, {
      caseRow: row,
      documentKind: input.documentKind,
      filename: cleanFilename(input.filename),
      source: { kind: 'upload', stored: { staged: staged!, mimeType: mime, byteSize: input.bytes.byteLength }, sampleUrl: input.sampleUrl },
      cause,
    });
    // As /process does for a case that is still open: processing takes it back to the applicant when done.
    if (row.runtime_status === 'intake_in_progress') await transitionCase(tx, deps, { row, to: 'processing', cause });
    return ok<UploadOutcome>({ kind: 'uploaded', doc_id: docId });
  }).catch(async (err: unknown) => {
    if (staged) await deps.blobs.discard(staged);
    throw err;
  });
  // Refused (or rolled back): the object has no row and goes now, not an hour later.
  if (staged && !(outcome.ok && outcome.value.kind === 'uploaded')) await deps.blobs.discard(staged);
  return outcome;
}

/** Removes an uploaded file before submission: it is erased (bytes, text and derived facts), as erasure does. */
export async function removeApplicantDocument(deps: IntakeDeps, input: ApplicantProof & { docId: string; traceId: string }): Promise<Result<{ doc_id: string }>> {
  const now = deps.clock.now();
  return inTransactionResult(deps.db, async (tx) => {
    const authorized = await authorizeApplicant(tx, input);
    if (!authorized.ok) return authorized;
    const session = authorized.value;
    if (!writable(session, now)) return fail('invalid_request', 'This intake no longer takes changes.');
    const doc = await findDocument(tx, tenantOfRow(session), input.docId, session.case_id);
    if (!doc || doc.case_id !== session.case_id || doc.source !== 'upload') return fail('not_found', 'No such file in this intake.');
    const erased = await eraseDocument({ ...deps, db: tx }, {
      tenant: { orgId: session.org_id, environment: session.environment },
      caseId: session.case_id,
      docId: doc.doc_id,
      cause: { traceId: input.traceId, idempotencyKey: null, sessionId: session.session_id },
    });
    if (!erased.ok) return erased;
    return ok({ doc_id: doc.doc_id });
  });
}

function writable(session: SessionRow, now: Date): boolean {
  return session.status === 'open' && session.expires_at > now;
}

/** A file name as shown back to the applicant and operators: no path, no control characters, bounded. */
function cleanFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 200);
  return clean === '' ? 'upload' : clean;
}

export { MAX_DOCUMENT_BYTES };
