import type { Insertable, Selectable, Updateable } from 'kysely';
import type { DocumentRow } from './cases.ts';
import type { Executor, Tx } from './schema.ts';
import type { Tenant } from '../ports/tenant.ts';
import type { DocumentPagesTable, DocumentsTable } from './tables/cases.ts';

export async function insertDocument(tx: Tx, row: Insertable<DocumentsTable>): Promise<DocumentRow> {
  return tx.insertInto('documents').values(row).returningAll().executeTakeFirstOrThrow();
}

/** A document of the workspace; with `caseId`, only when it belongs to that case. */
export async function findDocument(db: Executor, tenant: Tenant, docId: string, caseId?: string): Promise<DocumentRow | undefined> {
  let q = db.selectFrom('documents').selectAll().where('doc_id', '=', docId).where('org_id', '=', tenant.orgId).where('environment', '=', tenant.environment);
  if (caseId !== undefined) q = q.where('case_id', '=', caseId);
  return q.executeTakeFirst();
}

/** A document by id alone, for workers holding a claimed job's document id. */
export async function findDocumentUnscoped(db: Executor, docId: string): Promise<DocumentRow | undefined> {
  return db.selectFrom('documents').selectAll().where('doc_id', '=', docId).executeTakeFirst();
}

export async function updateDocument(tx: Tx, tenant: Tenant, docId: string, changes: Updateable<DocumentsTable>): Promise<void> {
  await tx
    .updateTable('documents')
    .set(changes)
    .where('doc_id', '=', docId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .execute();
}

/** What a page stores: its canonical text, how it was read, and its size when it has one. */
export interface PageInput {
  readonly page_index: number;
  readonly text: string;
  readonly method: string;
  readonly ocr_confidence?: number;
  readonly size?: { readonly width: number; readonly height: number; readonly unit: 'pt' | 'px' };
}

export async function savePages(tx: Tx, docId: string, pages: readonly PageInput[]): Promise<void> {
  await tx.deleteFrom('document_pages').where('doc_id', '=', docId).execute();
  if (pages.length === 0) return;
  await tx
    .insertInto('document_pages')
    .values(pages.map((p) => ({
      doc_id: docId,
      page_index: p.page_index,
      text: p.text,
      method: p.method,
      ocr_confidence: p.ocr_confidence ?? null,
      width: p.size?.width ?? null,
      height: p.size?.height ?? null,
      unit: p.size?.unit ?? null,
    })))
    .execute();
}

export type PageRow = Selectable<DocumentPagesTable>;

/** A document's stored pages in page order. */
export async function listPages(db: Executor, docId: string): Promise<PageRow[]> {
  return db.selectFrom('document_pages').selectAll().where('doc_id', '=', docId).orderBy('page_index').execute();
}

export async function deletePages(tx: Tx, docId: string): Promise<void> {
  await tx.deleteFrom('document_pages').where('doc_id', '=', docId).execute();
}

/** Every document of a case, oldest id first. */
export async function selectCaseDocuments(db: Executor, tenant: Tenant, caseId: string): Promise<DocumentRow[]> {
  return db
    .selectFrom('documents')
    .selectAll()
    .where('case_id', '=', caseId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .orderBy('doc_id')
    .execute();
}

/** Whether any document of the case is still uploaded or processing. */
export async function hasUnfinishedDocuments(db: Executor, tenant: Tenant, caseId: string): Promise<boolean> {
  const row = await db
    .selectFrom('documents')
    .select('doc_id')
    .where('case_id', '=', caseId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('status', 'in', ['uploaded', 'processing'])
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** How many documents of one kind the case holds that count (neither erased nor failed). */
export async function countLiveDocumentsOfKind(db: Executor, tenant: Tenant, caseId: string, documentKind: string): Promise<number> {
  const rows = await db
    .selectFrom('documents')
    .select('doc_id')
    .where('case_id', '=', caseId)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('document_kind', '=', documentKind)
    .where('status', 'not in', ['erased', 'failed'])
    .execute();
  return rows.length;
}
