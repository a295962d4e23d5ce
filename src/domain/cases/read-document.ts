import { findCase } from '../../storage/cases.ts';
import { findDocument, listPages } from '../../storage/documents.ts';
import type { Executor } from '../../storage/schema.ts';
import type { PageTextMethod } from '../documents/types.ts';
import { fail, ok, type Result } from '../errors.ts';
import { renderCaseDocument } from './case-record.ts';
import { documentStateOf } from './load-case.ts';
import { caseNotFound } from './read-case.ts';
import type { Tenant } from '../../ports/tenant.ts';

export interface DocumentPage {
  page_index: number;
  method: PageTextMethod;
  /** The canonical page text: every evidence `location` indexes into it. */
  text: string;
  width: number | null;
  height: number | null;
  unit: 'pt' | 'px' | null;
}

export type DocumentDetail = ReturnType<typeof renderCaseDocument> & { case_id: string; pages: DocumentPage[] };

/**
 * GET /api/v1/cases/{case_id}/documents/{doc_id} (contract §9): the document and its pages, so a
 * client can check every evidence quote against the text its offsets index. An erased document
 * keeps its id and status and has no pages; a document of another organisation is `not_found`.
 */
export async function readDocument(
  deps: { db: Executor },
  input: { tenant: Tenant; caseId: string; docId: string },
): Promise<Result<DocumentDetail>> {
  const { tenant, caseId, docId } = input;
  const found = await findCase(deps.db, tenant, caseId);
  if (!found) return caseNotFound(caseId);
  const doc = await findDocument(deps.db, tenant, docId, caseId);
  if (!doc) return fail('not_found', `Case ${caseId} has no document ${docId}.`);
  // Erasure deletes the page rows; the status check also covers a page left by a crash mid-way.
  const pages = doc.status === 'erased' ? [] : await listPages(deps.db, doc.doc_id);
  return ok({
    ...renderCaseDocument(documentStateOf(doc)),
    case_id: caseId,
    pages: pages.map((p) => ({ page_index: p.page_index, method: p.method as PageTextMethod, text: p.text, width: p.width, height: p.height, unit: p.unit })),
  });
}
