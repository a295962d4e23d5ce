import type { Insertable, Selectable } from 'kysely';
import { toJsonb } from './json.ts';
import type { Executor, Tx } from './schema.ts';
import type { FactCorrectionsTable } from './tables/cases.ts';
import type { Tenant } from '../ports/tenant.ts';

export async function insertFactCorrection(tx: Tx, row: Insertable<FactCorrectionsTable>): Promise<void> {
  await tx.insertInto('fact_corrections').values(row).execute();
}

/**
 * Forgets the previous values that came from documents (erasure): the history keeps who changed
 * what and when, not values derived from an erased document, nor the evidence (quotes, pages)
 * they were read from.
 */
export async function forgetDocumentSourcedPreviousValues(tx: Tx, tenant: Tenant, caseId: string): Promise<void> {
  await tx
    .updateTable('fact_corrections')
    .set({ previous_value: null })
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('case_id', '=', caseId)
    .where('previous_source', '=', 'document_extraction')
    .execute();
  await tx
    .updateTable('fact_corrections')
    .set({ previous_evidence: toJsonb([]) })
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('case_id', '=', caseId)
    .execute();
}

/** A case's correction history, oldest first. */
export async function selectCaseFactCorrections(db: Executor, tenant: Tenant, caseId: string): Promise<Selectable<FactCorrectionsTable>[]> {
  return db
    .selectFrom('fact_corrections')
    .selectAll()
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('case_id', '=', caseId)
    .orderBy('created_at')
    .orderBy('correction_id')
    .execute();
}
