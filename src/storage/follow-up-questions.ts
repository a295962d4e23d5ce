import type { Insertable, Selectable } from 'kysely';
import type { Executor, Tx } from './schema.ts';
import type { FollowUpQuestionsTable } from './tables/cases.ts';
import type { Tenant } from '../ports/tenant.ts';

export type FollowUpQuestionRow = Selectable<FollowUpQuestionsTable>;

/** The case's questions still waiting for the applicant. */
export async function selectOpenFollowUps(db: Executor, tenant: Tenant, caseId: string): Promise<FollowUpQuestionRow[]> {
  return db
    .selectFrom('follow_up_questions')
    .selectAll()
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('case_id', '=', caseId)
    .where('status', '=', 'open')
    .orderBy('created_at')
    .execute();
}

export async function insertFollowUpQuestion(tx: Tx, row: Insertable<FollowUpQuestionsTable>): Promise<void> {
  await tx.insertInto('follow_up_questions').values(row).execute();
}

export async function markFollowUpAnswered(tx: Tx, tenant: Tenant, caseId: string, factId: string, answer: string, at: Date): Promise<void> {
  await tx
    .updateTable('follow_up_questions')
    .set({ status: 'answered', answer, answered_at: at })
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('case_id', '=', caseId)
    .where('fact_id', '=', factId)
    .where('status', '=', 'open')
    .execute();
}

/** Withdraws every open question of the case; returns the fact ids they asked about. */
export async function markOpenFollowUpsWithdrawn(tx: Tx, tenant: Tenant, caseId: string): Promise<string[]> {
  const rows = await tx
    .updateTable('follow_up_questions')
    .set({ status: 'withdrawn' })
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('case_id', '=', caseId)
    .where('status', '=', 'open')
    .returning('fact_id')
    .execute();
  return rows.map((r) => r.fact_id);
}
