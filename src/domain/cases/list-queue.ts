import { listQueueRows } from '../../storage/queue.ts';
import type { Executor } from '../../storage/schema.ts';
import { fail, ok, type Result } from '../errors.ts';
import type { Tenant } from '../../ports/tenant.ts';

export interface QueueQuery {
  queueCategory?: string | undefined;
  runtimeStatus?: string | undefined;
  caseTypeId?: string | undefined;
  startingAfter?: string | undefined;
  limit: number;
}

/** An opaque cursor naming the last row of a page: its sort timestamp and case id. */
export function encodeQueueCursor(sortTimestamp: Date, caseId: string): string {
  return Buffer.from(`${sortTimestamp.toISOString()}|${caseId}`, 'utf8').toString('base64url');
}

export function decodeQueueCursor(cursor: string): { sortTimestamp: Date; caseId: string } | undefined {
  const [iso, caseId] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const sortTimestamp = iso ? new Date(iso) : undefined;
  if (!sortTimestamp || Number.isNaN(sortTimestamp.getTime()) || !caseId) return undefined;
  return { sortTimestamp, caseId };
}

/** GET /api/v1/cases: the workspace's queue rows, oldest in their position first. */
export async function listQueue(
  deps: { db: Executor },
  input: { tenant: Tenant; query: QueueQuery },
): Promise<Result<{ data: Record<string, unknown>[]; has_more: boolean; next_cursor: string | null }>> {
  const { db } = deps;
  const { tenant, query } = input;
  const after = query.startingAfter === undefined ? undefined : decodeQueueCursor(query.startingAfter);
  if (query.startingAfter !== undefined && !after) return fail('invalid_request', 'starting_after is not a cursor this API returned.');
  const { rows, hasMore } = await listQueueRows(db, {
    orgId: tenant.orgId,
    environment: tenant.environment,
    ...(query.queueCategory ? { queueCategory: query.queueCategory } : {}),
    ...(query.runtimeStatus ? { runtimeStatus: query.runtimeStatus } : {}),
    ...(query.caseTypeId ? { caseTypeId: query.caseTypeId } : {}),
    ...(after ? { after } : {}),
    limit: query.limit,
  });
  const last = rows.at(-1);
  return ok({
    data: rows.map((r) => ({ ...r.queue_row, updated_at: r.updated_at.toISOString() })),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeQueueCursor(last.status_changed_at, last.case_id) : null,
  });
}
