import type { Updateable } from 'kysely';
import type { FactRow } from './cases.ts';
import type { Executor, Tx } from './schema.ts';
import type { FactsTable } from './tables/cases.ts';

export async function findFact(db: Executor, caseId: string, factId: string): Promise<FactRow | undefined> {
  return db.selectFrom('facts').selectAll().where('case_id', '=', caseId).where('fact_id', '=', factId).executeTakeFirst();
}

export async function updateFact(tx: Tx, caseId: string, factId: string, changes: Updateable<FactsTable>): Promise<void> {
  await tx.updateTable('facts').set(changes).where('case_id', '=', caseId).where('fact_id', '=', factId).execute();
}

export async function openFollowUpFactIds(db: Executor, caseId: string): Promise<string[]> {
  const rows = await db.selectFrom('follow_up_questions').select('fact_id').where('case_id', '=', caseId).where('status', '=', 'open').execute();
  return rows.map((r) => r.fact_id);
}
