import type { RuntimeStatus } from '../../storage/tables/cases.ts';
import { countQueueCategories, listQueueRows } from '../../storage/queue.ts';
import { selectCaseTypes } from '../../storage/case-types.ts';
import type { Executor } from '../../storage/schema.ts';
import { fail, ok, type Result } from '../errors.ts';
import { decodeQueueCursor, encodeQueueCursor } from '../cases/list-queue.ts';
import { QUEUE_CATEGORIES, type QueueCategory, type WhyHereCode } from '../cases/queue.ts';
import type { Tenant } from '../cases/read-case.ts';
import type { BlockingItem } from '../cases/projection.ts';

export interface ConsoleQueueRow {
  caseId: string;
  caseTypeId: string;
  externalCaseId: string | null;
  externalApplicantId: string | null;
  externalCustomerId: string | null;
  runtimeStatus: RuntimeStatus;
  queueCategory: QueueCategory;
  whyHere: string;
  whyHereCode: WhyHereCode;
  blockingItems: BlockingItem[];
  /** When the case entered its current position: the queue's age. */
  since: Date;
}

export interface ConsoleQueueQuery {
  /** A category, or undefined for every case (a search looks across all of them). */
  category: QueueCategory | undefined;
  runtimeStatus: RuntimeStatus | undefined;
  caseTypeId: string | undefined;
  search: string | undefined;
  after: string | undefined;
  limit: number;
}

export interface ConsoleQueuePage {
  rows: ConsoleQueueRow[];
  counts: Record<QueueCategory, number>;
  total: number;
  caseTypes: { caseTypeId: string; name: string }[];
  nextCursor: string | null;
}

/** Cases per queue category of a workspace environment (the queue's tabs). */
export async function queueCategoryCounts(deps: { db: Executor }, tenant: Tenant): Promise<Record<QueueCategory, number>> {
  const counted = await countQueueCategories(deps.db, tenant.orgId, tenant.environment);
  return Object.fromEntries(QUEUE_CATEGORIES.map((c) => [c, counted[c] ?? 0])) as Record<QueueCategory, number>;
}

/**
 * The queue page of the dashboard: the same rows, order and cursor as GET /api/v1/cases, plus
 * per-category counts for the tabs, an exact-id search and the case types for the filter.
 */
export async function readConsoleQueue(deps: { db: Executor }, input: { tenant: Tenant; query: ConsoleQueueQuery }): Promise<Result<ConsoleQueuePage>> {
  const { db } = deps;
  const { tenant, query } = input;
  const after = query.after === undefined ? undefined : decodeQueueCursor(query.after);
  if (query.after !== undefined && !after) return fail('invalid_request', 'That page link is not valid any more. Start from the first page.');
  const [listed, counted, types] = await Promise.all([
    listQueueRows(db, {
      orgId: tenant.orgId,
      environment: tenant.environment,
      ...(query.category ? { queueCategory: query.category } : {}),
      ...(query.runtimeStatus ? { runtimeStatus: query.runtimeStatus } : {}),
      ...(query.caseTypeId ? { caseTypeId: query.caseTypeId } : {}),
      ...(query.search ? { search: query.search } : {}),
      ...(after ? { after } : {}),
      limit: query.limit,
    }),
    countQueueCategories(db, tenant.orgId, tenant.environment),
    selectCaseTypes(db, tenant.orgId, tenant.environment),
  ]);
  const counts = Object.fromEntries(QUEUE_CATEGORIES.map((c) => [c, counted[c] ?? 0])) as Record<QueueCategory, number>;
  const last = listed.rows.at(-1);
  return ok({
    rows: listed.rows.map((r) => {
      const q = r.queue_row as { runtime_status: RuntimeStatus; queue_category: QueueCategory; why_here: string; why_here_code: WhyHereCode; blocking_items: BlockingItem[] };
      return {
        caseId: r.case_id,
        caseTypeId: r.case_type_id,
        externalCaseId: r.external_case_id,
        externalApplicantId: r.external_applicant_id,
        externalCustomerId: r.external_customer_id,
        runtimeStatus: q.runtime_status,
        queueCategory: q.queue_category,
        whyHere: q.why_here,
        whyHereCode: q.why_here_code,
        blockingItems: q.blocking_items ?? [],
        since: r.status_changed_at,
      };
    }),
    counts,
    total: Object.values(counts).reduce((a, b) => a + b, 0),
    caseTypes: types.map((t) => ({ caseTypeId: t.case_type_id, name: t.name })),
    nextCursor: listed.hasMore && last ? encodeQueueCursor(last.status_changed_at, last.case_id) : null,
  });
}
