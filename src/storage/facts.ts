import type { Updateable } from 'kysely';
import type { FactRow } from './cases.ts';
import type { Executor, Tx } from './schema.ts';
import type { FactsTable } from './tables/cases.ts';
import type { Tenant } from '../ports/tenant.ts';

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

export async function findFact(db: Executor, tenant: Tenant, caseId: string, factId: string): Promise<FactRow | undefined> {
  return db
    .selectFrom('facts')
    .selectAll()
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('case_id', '=', caseId)
    .where('fact_id', '=', factId)
    .executeTakeFirst();
}

/** Changes one fact; `onlyIfStatus` leaves it alone unless its status is one of those. */
export async function updateFactRow(
  tx: Tx,
  tenant: Tenant,
  caseId: string,
  factId: string,
  changes: Updateable<FactsTable>,
  onlyIfStatus?: readonly FactRow['status'][],
): Promise<void> {
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
