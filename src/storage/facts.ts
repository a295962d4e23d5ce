import type { Insertable, Updateable } from 'kysely';
import type { FactRow } from './cases.ts';
import type { Executor, Tx } from './schema.ts';
import type { FactsTable } from './tables/cases.ts';
import type { Tenant } from '../ports/tenant.ts';

/** Columns of a fact to change (jsonb ones as JSON text). */
export type FactChanges = Updateable<FactsTable>;

/** Every fact of a case. */
export async function selectCaseFacts(db: Executor, tenant: Tenant, caseId: string): Promise<FactRow[]> {
  return db
    .selectFrom('facts')
    .selectAll()
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('case_id', '=', caseId)
    .execute();
}

/**
 * Changes one fact. With `insertFrom`, a fact with no row gets one: `insertFrom` with `changes`
 * over it (facts are written when there is something to say: src/domain/cases/case-facts.ts).
 * `onlyIfStatus` leaves a stored fact alone unless its status is one of those.
 */
export async function upsertFactRow(
  tx: Tx,
  tenant: Tenant,
  fact: { caseId: string; factId: string },
  changes: FactChanges,
  options: { insertFrom?: Insertable<FactsTable> | undefined; onlyIfStatus?: readonly FactRow['status'][] | undefined } = {},
): Promise<void> {
  const { caseId, factId } = fact;
  const { insertFrom, onlyIfStatus } = options;
  if (insertFrom) {
    await tx
      .insertInto('facts')
      .values({ ...insertFrom, ...changes, case_id: caseId, fact_id: factId, org_id: tenant.orgId, environment: tenant.environment } as Insertable<FactsTable>)
      .onConflict((oc) => {
        const update = oc.columns(['case_id', 'fact_id']).doUpdateSet(changes);
        return onlyIfStatus ? update.where('facts.status', 'in', onlyIfStatus) : update;
      })
      .execute();
    return;
  }
  let q = tx
    .updateTable('facts')
    .set(changes)
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('case_id', '=', caseId)
    .where('fact_id', '=', factId);
  if (onlyIfStatus) q = q.where('status', 'in', onlyIfStatus);
  await q.execute();
}
