import { sql, type Selectable } from 'kysely';
import { toJsonb } from './json.ts';
import type { Executor, Tx } from './schema.ts';
import type { CaseEventsTable } from './tables/cases.ts';
import type { Tenant } from '../ports/tenant.ts';

export type CaseEventRow = Selectable<CaseEventsTable>;

export interface NewCaseEvent extends Tenant {
  eventId: string;
  caseId: string;
  eventType: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

/**
 * Appends an event with the case's next cursor. The increment takes the case row lock until the
 * transaction ends, so cursors are gapless and commit in cursor order: a poller that resumes from
 * its last cursor can never skip an event that commits later with a smaller one. One statement
 * (the increment in a CTE feeding the insert): every case change appends events, and a round trip
 * saved here is saved on each of them.
 */
export async function appendCaseEvent(tx: Tx, event: NewCaseEvent): Promise<CaseEventRow> {
  return tx
    .with('bumped', (db) =>
      db
        .updateTable('cases')
        .set({ last_event_cursor: sql`last_event_cursor + 1`, updated_at: event.createdAt })
        .where('case_id', '=', event.caseId)
        .where('org_id', '=', event.orgId)
        .where('environment', '=', event.environment)
        .returning('last_event_cursor'),
    )
    .insertInto('case_events')
    .columns(['event_id', 'case_id', 'org_id', 'environment', 'cursor', 'event_type', 'data', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('bumped')
        .select([
          eb.val(event.eventId).as('event_id'),
          eb.val(event.caseId).as('case_id'),
          eb.val(event.orgId).as('org_id'),
          eb.val(event.environment).as('environment'),
          'bumped.last_event_cursor',
          eb.val(event.eventType).as('event_type'),
          sql`${toJsonb(event.data)}::jsonb`.as('data'),
          sql`${event.createdAt}::timestamptz`.as('created_at'),
        ]),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Events after `afterCursor`, oldest first; one more than `limit` is read to tell whether more remain. */
export async function listCaseEvents(
  db: Executor,
  tenant: Tenant,
  caseId: string,
  afterCursor: number,
  limit: number,
): Promise<{ events: CaseEventRow[]; hasMore: boolean }> {
  const rows = await db
    .selectFrom('case_events')
    .selectAll()
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('case_id', '=', caseId)
    .where('cursor', '>', afterCursor)
    .orderBy('cursor')
    .limit(limit + 1)
    .execute();
  return { events: rows.slice(0, limit), hasMore: rows.length > limit };
}
