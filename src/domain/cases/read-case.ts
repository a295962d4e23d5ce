import type { Environment } from '../../config.ts';
import { listCaseEvents } from '../../storage/case-events.ts';
import { findCase } from '../../storage/cases.ts';
import type { Executor } from '../../storage/schema.ts';
import { fail, ok, type Result } from '../errors.ts';
import { renderCaseRecord, type CaseRecord } from './case-record.ts';
import { loadCaseState } from './load-case.ts';

export interface Tenant {
  orgId: string;
  environment: Environment;
}

export function caseNotFound(caseId: string) {
  return fail('not_found', `No case ${caseId} in this workspace.`);
}

/** GET /api/v1/cases/{case_id}: the canonical current state. */
export async function readCaseRecord(db: Executor, tenant: Tenant, caseId: string): Promise<Result<CaseRecord>> {
  const state = await loadCaseState(db, tenant.orgId, tenant.environment, caseId);
  return state ? ok(renderCaseRecord(state)) : caseNotFound(caseId);
}

export interface CaseEventPage {
  case_id: string;
  events: { event_id: string; event_type: string; cursor: number; created_at: string; data: Record<string, unknown> }[];
  next_cursor: number;
  has_more: boolean;
}

/**
 * GET /api/v1/cases/{case_id}/events (spec §4.2). `next_cursor` is the last cursor returned, or
 * `after_cursor` when the page is empty, so a poller can always send it back unchanged.
 */
export async function readCaseEvents(
  db: Executor,
  tenant: Tenant,
  input: { caseId: string; afterCursor: number; limit: number },
): Promise<Result<CaseEventPage>> {
  const found = await findCase(db, tenant.orgId, tenant.environment, input.caseId);
  if (!found) return caseNotFound(input.caseId);
  const { events, hasMore } = await listCaseEvents(db, input.caseId, input.afterCursor, input.limit);
  return ok({
    case_id: input.caseId,
    events: events.map((e) => ({
      event_id: e.event_id,
      event_type: e.event_type,
      cursor: e.cursor,
      created_at: e.created_at.toISOString(),
      data: e.data,
    })),
    next_cursor: events.at(-1)?.cursor ?? input.afterCursor,
    has_more: hasMore,
  });
}
