import type { Environment } from '../../config.ts';
import type { Deps } from '../deps.ts';
import type { DeliveryStatus } from '../../storage/tables/webhooks.ts';
import { inTransactionResult } from '../../storage/unit-of-work.ts';
import {
  countRecentDeliveriesByEndpoint,
  findDelivery,
  listAttempts,
  listDeliveries,
  lockDelivery,
  notifyDeliveriesQueued,
  requeueFailedDelivery,
  type AttemptRow,
  type DeliveryRow,
} from '../../storage/webhooks/deliveries.ts';
import { findEndpoint } from '../../storage/webhooks/endpoints.ts';
import { moveHandoff } from '../../storage/webhooks/handoff.ts';
import { fail, ok, type Result } from '../errors.ts';
import { maxAttempts } from '../retry-schedule.ts';
import type { WebhookEnvelope } from './envelope.ts';
import { CASE_COMPLETED } from './event-types.ts';
import { tenantOfRow } from '../../ports/tenant.ts';

export interface AttemptView {
  attempt_number: number;
  attempted_at: string;
  /** null when there was no HTTP answer (timeout, refused, blocked). */
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  /** The first 4 KiB of the receiver's answer. */
  response_excerpt: string | null;
}

export interface DeliverySummary {
  delivery_id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  endpoint_url: string;
  case_id: string | null;
  status: DeliveryStatus;
  /** Attempts made in the current budget of `max_attempts` (a manual retry starts a new budget). */
  attempt_count: number;
  max_attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
  failed_at: string | null;
  acknowledged_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface DeliveryDetail extends DeliverySummary {
  attempts: AttemptView[];
  /** The body every attempt sends, parsed. */
  envelope: WebhookEnvelope;
}

type LogDeps = Pick<Deps, 'db' | 'config'>;

const iso = (d: Date | null) => d?.toISOString() ?? null;

function toSummary(row: DeliveryRow, url: string, retryDelays: readonly number[]): DeliverySummary {
  return {
    delivery_id: row.delivery_id,
    event_id: row.event_id,
    event_type: row.event_type,
    endpoint_id: row.endpoint_id,
    endpoint_url: url,
    case_id: row.case_id,
    status: row.status,
    attempt_count: row.attempt_count,
    max_attempts: maxAttempts(retryDelays),
    next_attempt_at: iso(row.next_attempt_at),
    last_attempt_at: iso(row.last_attempt_at),
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    delivered_at: iso(row.delivered_at),
    failed_at: iso(row.failed_at),
    acknowledged_at: iso(row.acknowledged_at),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function toAttemptView(row: AttemptRow): AttemptView {
  return {
    attempt_number: row.attempt_number,
    attempted_at: row.attempted_at.toISOString(),
    status_code: row.status_code,
    duration_ms: row.duration_ms,
    error: row.error,
    response_excerpt: row.response_excerpt,
  };
}

export interface DeliveryListInput {
  orgId: string;
  environment: Environment;
  caseId?: string;
  status?: DeliveryStatus;
  eventType?: string;
  endpointId?: string;
  limit: number;
  /** The `next_cursor` of the previous page: the id of its last delivery. */
  startingAfter?: string;
}

export interface DeliveryPage {
  deliveries: DeliverySummary[];
  has_more: boolean;
  /** Pass as `starting_after` for the next page; null on the last page. */
  next_cursor: string | null;
}

/** Newest first. The cursor is a delivery id, so a page boundary stays put while new deliveries arrive. */
export async function listDeliveryLog(deps: LogDeps, input: DeliveryListInput): Promise<Result<DeliveryPage>> {
  let after: { createdAt: Date; id: string } | undefined;
  if (input.startingAfter !== undefined) {
    const anchor = await findDelivery(deps.db, input, input.startingAfter);
    if (!anchor) return fail('invalid_request', `starting_after: no delivery ${input.startingAfter} in this workspace.`);
    after = { createdAt: anchor.created_at, id: anchor.delivery_id };
  }
  const { rows, hasMore } = await listDeliveries(deps.db, {
    orgId: input.orgId,
    environment: input.environment,
    limit: input.limit,
    ...(input.caseId !== undefined ? { caseId: input.caseId } : {}),
    ...(input.status !== undefined ? { status: input.status } : {}),
    ...(input.eventType !== undefined ? { eventType: input.eventType } : {}),
    ...(input.endpointId !== undefined ? { endpointId: input.endpointId } : {}),
    ...(after ? { after } : {}),
  });
  const deliveries = rows.map((r) => toSummary(r, r.url, deps.config.webhookRetryDelaysSeconds));
  return ok({ deliveries, has_more: hasMore, next_cursor: hasMore ? deliveries.at(-1)!.delivery_id : null });
}

export async function getDeliveryDetail(
  deps: LogDeps,
  input: { orgId: string; environment: Environment; deliveryId: string },
): Promise<Result<DeliveryDetail>> {
  const { orgId, environment, deliveryId } = input;
  const row = await findDelivery(deps.db, { orgId, environment }, deliveryId);
  if (!row) return fail('not_found', `No webhook delivery ${deliveryId}.`);
  return ok(await detailOf(deps, row));
}

async function detailOf(deps: LogDeps, row: DeliveryRow): Promise<DeliveryDetail> {
  const [endpoint, attempts] = await Promise.all([findEndpoint(deps.db, tenantOfRow(row), row.endpoint_id), listAttempts(deps.db, tenantOfRow(row), row.delivery_id)]);
  return {
    ...toSummary(row, endpoint?.url ?? '', deps.config.webhookRetryDelaysSeconds),
    attempts: attempts.map(toAttemptView),
    envelope: JSON.parse(row.payload) as WebhookEnvelope,
  };
}

/**
 * Sends a failed delivery again: back to `pending` with a fresh budget of attempts, the same
 * delivery_id and the same body (receivers deduplicate by delivery_id). A failed case.completed
 * handoff is `dispatching` again. Only failed deliveries qualify: the others are delivered or
 * still being retried on their own.
 */
export async function retryDelivery(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  input: { orgId: string; environment: Environment; deliveryId: string },
): Promise<Result<DeliveryDetail>> {
  const { orgId, environment, deliveryId } = input;
  const now = deps.clock.now();
  const requeued = await inTransactionResult(deps.db, async (tx) => {
    const row = await lockDelivery(tx, { orgId, environment }, deliveryId);
    if (!row) return fail('not_found', `No webhook delivery ${deliveryId}.`);
    if (row.status !== 'failed') {
      return fail('invalid_request', `Only failed deliveries can be retried; delivery ${deliveryId} is ${row.status}.`);
    }
    const updated = await requeueFailedDelivery(tx, { orgId, environment }, deliveryId, now);
    if (!updated) throw new Error('failed delivery vanished under its row lock');
    if (row.event_type === CASE_COMPLETED && row.case_id !== null) {
      await moveHandoff(tx, { orgId, environment, caseId: row.case_id }, { to: 'dispatching', from: ['dispatch_failed'], now });
    }
    await notifyDeliveriesQueued(tx);
    return ok(updated);
  });
  if (!requeued.ok) return requeued;
  return ok(await detailOf(deps, requeued.value));
}

export interface RecentDeliveryStats {
  delivered: number;
  failed: number;
  /** Pending or waiting for a retry. */
  waiting: number;
}

/** Per endpoint: what became of the deliveries created in the last 24 hours. */
export async function recentDeliveryStats(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: { orgId: string; environment: Environment },
): Promise<Map<string, RecentDeliveryStats>> {
  const since = new Date(deps.clock.now().getTime() - 24 * 60 * 60 * 1000);
  const stats = new Map<string, RecentDeliveryStats>();
  for (const row of await countRecentDeliveriesByEndpoint(deps.db, { ...input, since })) {
    const s = stats.get(row.endpoint_id) ?? { delivered: 0, failed: 0, waiting: 0 };
    if (row.status === 'delivered') s.delivered += row.n;
    else if (row.status === 'failed') s.failed += row.n;
    else s.waiting += row.n;
    stats.set(row.endpoint_id, s);
  }
  return stats;
}
