import { currencyMarkerOfQuote } from '../parsers/money.ts';
import type { BlobStore } from '../../ports/blob-store.ts';
import type { Clock } from '../../ports/clock.ts';
import { selectCaseFacts } from '../../storage/facts.ts';
import type { PageImageMeta } from '../../storage/page-images.ts';
import type { Executor } from '../../storage/schema.ts';
import type { FactDefinition, UploadNode } from '../case-types/definition.ts';
import { confirmableFactIds } from '../case-types/fact-roles.ts';
import { boxOf } from '../console/case-view.ts';
import { ensurePageImage, readPageImage } from '../console/page-images.ts';
import { fail, type Result } from '../errors.ts';
import type { ApplicantIntake } from './applicant-intake.ts';

/** Where a value sits on its page, in page units, with the page's size: enough to draw a crop around it. */
export interface EvidenceCrop {
  docId: string;
  pageIndex: number;
  box: { x: number; y: number; width: number; height: number };
  page: { width: number; height: number };
}

export interface ExtractedValue {
  fact: FactDefinition;
  value: string;
  correctedByApplicant: boolean;
  crop: EvidenceCrop | undefined;
  /** For money: the currency marker of the quote the value was read from ("$", "£", "EUR"), when it had one. */
  currencyMarker: string | undefined;
}

/** What the confirm page of an upload step shows: still reading, or the values it read. */
export type ExtractedForConfirm = { kind: 'reading' } | { kind: 'read'; values: ExtractedValue[] };

type ConfirmDeps = { db: Executor; clock: Clock; blobs: BlobStore };

/**
 * The values of one upload step the applicant is asked to confirm: the step's depended-on facts
 * (`confirmableFactIds`) that were read with a value, each with the box of its first evidence
 * when the page has one (PDFs and photos; text files have no page image). `reading` while a file
 * of the step is still being read.
 */
export async function readExtractedForConfirm(deps: ConfirmDeps, input: { intake: ApplicantIntake; node: UploadNode }): Promise<ExtractedForConfirm> {
  const { intake, node } = input;
  const kinds = new Set(node.documents.map((d) => d.document_kind));
  const docs = intake.documents.filter((d) => d.document_kind !== null && kinds.has(d.document_kind));
  if (docs.some((d) => d.status === 'uploaded' || d.status === 'processing')) return { kind: 'reading' };
  const ids = confirmableFactIds(intake.definition, node);
  const tenant = { orgId: intake.org_id, environment: intake.environment };
  const rows = new Map((await selectCaseFacts(deps.db, tenant, intake.case_id)).map((f) => [f.fact_id, f]));
  const values: ExtractedValue[] = [];
  for (const id of ids) {
    const row = rows.get(id);
    const fact = intake.definition.facts.find((f) => f.fact_id === id)!;
    if (!row || row.value === null || row.status !== 'resolved' || (row.source !== 'document_extraction' && row.corrected_by !== 'applicant')) continue;
    const evidence = (row.evidence as { doc_id: string; page_index: number; quote?: string }[])[0];
    const box = evidence ? boxOf(evidence) : undefined;
    let crop: EvidenceCrop | undefined;
    if (evidence && box && docs.some((d) => d.doc_id === evidence.doc_id)) {
      const meta = await ensurePageImage(deps, { tenant, ref: { caseId: intake.case_id, docId: evidence.doc_id, pageIndex: box.pageIndex } });
      if (meta.ok && meta.value) crop = { docId: evidence.doc_id, pageIndex: box.pageIndex, box, page: { width: meta.value.page_width, height: meta.value.page_height } };
    }
    const currencyMarker = fact.type === 'money' && typeof evidence?.quote === 'string' ? currencyMarkerOfQuote(evidence.quote) : undefined;
    values.push({ fact, value: row.value, correctedByApplicant: row.corrected_by === 'applicant', crop, currencyMarker });
  }
  return { kind: 'read', values };
}

/** A page image of one of the applicant's own files, for the crops of the confirm page. */
export async function readApplicantPageImage(deps: ConfirmDeps, input: { intake: ApplicantIntake; docId: string; pageIndex: number }): Promise<Result<PageImageMeta & { bytes: Buffer }>> {
  const { intake } = input;
  if (!intake.documents.some((d) => d.doc_id === input.docId)) return fail('not_found', 'No such file in this intake.');
  return readPageImage(deps, { tenant: { orgId: intake.org_id, environment: intake.environment }, ref: { caseId: intake.case_id, docId: input.docId, pageIndex: input.pageIndex } });
}
