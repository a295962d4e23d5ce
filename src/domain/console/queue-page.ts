import type { RuntimeStatus } from '../../storage/tables/cases.ts';
import { countDoneCases, countOpenQueueCategories, listQueueRows, searchQueue, type QueueFilter } from '../../storage/queue.ts';
import type { Clock } from '../../ports/clock.ts';
import { selectCaseTypes } from '../../storage/case-types.ts';
import { selectOperatorEmails } from '../../storage/operators.ts';
import { applicantNameOf } from './applicant-name.ts';
import type { Executor } from '../../storage/schema.ts';
import { fail, ok, type Result } from '../errors.ts';
import { decodeQueueCursor, encodeQueueCursor } from '../cases/list-queue.ts';
import { QUEUE_CATEGORIES, type QueueCategory, type WhyHereCode } from '../cases/queue.ts';
import type { Tenant } from '../../ports/tenant.ts';
import type { BlockingItem } from '../cases/projection.ts';

export interface ConsoleQueueRow {
  caseId: string;
  caseTypeId: string;
  /** The case type's name (its id when the type is gone). */
  caseTypeName: string;
  /** The applicant in words (applicant-name.ts), or null when the case says nothing about them. */
  applicantName: string | null;
  /** Who has taken the case, or null. */
  assignee: { operatorId: string; email: string } | null;
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
  /** `mine`: the viewer's cases; `unassigned`: nobody's; undefined: everyone's. */
  assignee?: 'mine' | 'unassigned' | undefined;
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

/** How long a process reuses a workspace's `done` count for the queue's tabs. */
export const DONE_COUNT_TTL_MS = 60_000;
const DONE_COUNT_ENTRIES = 10_000;

/**
 * `done` counts per workspace environment, reused for DONE_COUNT_TTL_MS by the process that
 * holds this (the dashboard makes one). `done` is the category that grows with the workspace's
 * whole history, while the open ones follow the workload; counting it on every queue page made
 * the page's cost grow with history. A decision made in this process forgets its workspace's
 * entry, so an operator sees their own approval counted at once; elsewhere, within a minute.
 */
export class DoneCountCache {
  private readonly entries = new Map<string, { count: number; at: number }>();

  async count(deps: { db: Executor; clock: Clock }, tenant: Tenant): Promise<number> {
    const key = `${tenant.orgId}/${tenant.environment}`;
    const now = deps.clock.now().getTime();
    const kept = this.entries.get(key);
    if (kept && now - kept.at >= 0 && now - kept.at < DONE_COUNT_TTL_MS) return kept.count;
    const count = await countDoneCases(deps.db, tenant);
    if (this.entries.size >= DONE_COUNT_ENTRIES) this.entries.clear();
    this.entries.set(key, { count, at: now });
    return count;
  }

  forget(tenant: Tenant): void {
    this.entries.delete(`${tenant.orgId}/${tenant.environment}`);
  }
}

/**
 * Cases per queue category of a workspace environment: the open categories counted now (one
 * query over the partial index cases_queue_open_counts), `done` from `doneCounts` when given,
 * else counted too (the overview counts exactly).
 */
export async function queueCategoryCounts(
  deps: { db: Executor; clock: Clock; doneCounts?: DoneCountCache | undefined },
  tenant: Tenant,
): Promise<Record<QueueCategory, number>> {
  const [open, done] = await Promise.all([
    countOpenQueueCategories(deps.db, tenant),
    deps.doneCounts ? deps.doneCounts.count(deps, tenant) : countDoneCases(deps.db, tenant),
  ]);
  return Object.fromEntries(QUEUE_CATEGORIES.map((c) => [c, c === 'done' ? done : (open[c] ?? 0)])) as Record<QueueCategory, number>;
}

/**
 * The queue page of the dashboard: the same rows, order and cursor as GET /api/v1/cases, plus
 * per-category counts for the tabs (of the search's results while searching), a search by id, applicant answer or fact value, and the case types for the filter.
 */
export async function readConsoleQueue(
  deps: { db: Executor; clock: Clock; doneCounts?: DoneCountCache | undefined },
  input: { tenant: Tenant; query: ConsoleQueueQuery; viewerOperatorId?: string },
): Promise<Result<ConsoleQueuePage>> {
  const { db } = deps;
  const { tenant, query } = input;
  const after = query.after === undefined ? undefined : decodeQueueCursor(query.after);
  if (query.after !== undefined && !after) return fail('invalid_request', 'That page link is not valid any more. Start from the first page.');
  const filter: QueueFilter = {
    orgId: tenant.orgId,
    environment: tenant.environment,
    ...(query.category ? { queueCategory: query.category } : {}),
    ...(query.runtimeStatus ? { runtimeStatus: query.runtimeStatus } : {}),
    ...(query.caseTypeId ? { caseTypeId: query.caseTypeId } : {}),
    ...(query.assignee === 'unassigned' ? { assignedTo: null } : query.assignee === 'mine' && input.viewerOperatorId ? { assignedTo: input.viewerOperatorId } : {}),
    ...(after ? { after } : {}),
    limit: query.limit,
  };
  const { search } = query;
  const [{ listed, counts }, types] = await Promise.all([
    // While searching, the tabs count what the search finds (issue 27 §3): the page and the counts
    // come from one statement that finds the candidates once.
    search
      ? searchQueue(db, filter, search).then(({ counts: found, ...listed }) => ({
          listed,
          counts: Object.fromEntries(QUEUE_CATEGORIES.map((c) => [c, found[c] ?? 0])) as Record<QueueCategory, number>,
        }))
      : Promise.all([listQueueRows(db, filter), queueCategoryCounts(deps, tenant)]).then(([listed, counts]) => ({ listed, counts })),
    selectCaseTypes(db, tenant),
  ]);
  const last = listed.rows.at(-1);
  const typeNames = new Map(types.map((t) => [t.case_type_id, t.name]));
  const assigneeIds = [...new Set(listed.rows.flatMap((r) => (r.assigned_to ? [r.assigned_to] : [])))];
  const emails = new Map((await selectOperatorEmails(db, tenant.orgId, assigneeIds)).map((o) => [o.operator_id, o.email]));
  return ok({
    rows: listed.rows.map((r) => {
      const q = r.queue_row as { runtime_status: RuntimeStatus; queue_category: QueueCategory; why_here: string; why_here_code: WhyHereCode; blocking_items: BlockingItem[] };
      return {
        caseId: r.case_id,
        caseTypeId: r.case_type_id,
        caseTypeName: typeNames.get(r.case_type_id) ?? r.case_type_id,
        applicantName: applicantNameOf(r.structured_inputs, r.prefill),
        assignee: r.assigned_to ? { operatorId: r.assigned_to, email: emails.get(r.assigned_to) ?? r.assigned_to } : null,
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
