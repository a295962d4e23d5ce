import { sql, type Selectable } from 'kysely';
import type { Environment } from '../config.ts';
import { toJsonb } from './json.ts';
import type { Executor, Tx } from './schema.ts';
import type { CaseEventsTable } from './tables/cases.ts';

export type CaseEventRow = Selectable<CaseEventsTable>;

export interface NewCaseEvent {
  eventId: string;
  caseId: string;
  orgId: string;
  environment: Environment;
  eventType: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

/**
 * Appends an event with the case's next cursor. The increment takes the case row lock until the
 * transaction ends, so cursors are gapless and commit in cursor order: a poller that resumes from
 * its last cursor can never skip an event that commits later with a smaller one.
 */
export async function appendCaseEvent(tx: Tx, event: NewCaseEvent): Promise<CaseEventRow> {
  const bumped = await tx
    .updateTable('cases')
    .set({ last_event_cursor: sql`last_event_cursor + 1`, updated_at: event.createdAt })
    .where('case_id', '=', event.caseId)
    .returning('last_event_cursor')
    .executeTakeFirstOrThrow();
  return tx
    .insertInto('case_events')
    .values({
      event_id: event.eventId,
      case_id: event.caseId,
      org_id: event.orgId,
      environment: event.environment,
      cursor: bumped.last_event_cursor,
      event_type: event.eventType,
      data: toJsonb(event.data),
      created_at: event.createdAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Events after `afterCursor`, oldest first; one more than `limit` is read to tell whether more remain. */
export async function listCaseEvents(
  db: Executor,
  caseId: string,
  afterCursor: number,
  limit: number,
): Promise<{ events: CaseEventRow[]; hasMore: boolean }> {
  const rows = await db
    .selectFrom('case_events')
    .selectAll()
    .where('case_id', '=', caseId)
    .where('cursor', '>', afterCursor)
    .orderBy('cursor')
    .limit(limit + 1)
    .execute();
  return { events: rows.slice(0, limit), hasMore: rows.length > limit };
}
