import type { Deps } from '../deps.ts';
import type { ActionEnqueuer, Cause, WebhookEnqueuer } from '../../ports/enqueuers.ts';
import { tenantOfRow } from '../../ports/tenant.ts';
import { appendCaseEvent, type CaseEventRow } from '../../storage/case-events.ts';
import type { CaseRow } from '../../storage/cases.ts';
import type { Tx } from '../../storage/schema.ts';
import { beforeCommit } from '../../storage/unit-of-work.ts';
import { refreshQueueProjection } from './queue-projection.ts';

/** Case events that are also webhook events (contract §8 catalog), by their semantic name. */
export const WEBHOOK_CASE_EVENTS = new Set([
  'intake.submitted',
  'case.needs_input',
  'case.ready_for_review',
  'case.completed',
  'session.expired',
]);

/** Case events that may trigger workflow action nodes (issue 14). */
export const ACTION_TRIGGER_EVENTS = new Set(['intake.submitted', 'case.completed']);

/**
 * Appends a case event in the caller's transaction and, for catalog events, the webhook outbox
 * rows too: the change, its event and its deliveries commit together or not at all.
 */
export async function recordCaseEvent(
  tx: Tx,
  deps: Pick<Deps, 'clock' | 'ids'> & { enqueueWebhook: WebhookEnqueuer; enqueueActions: ActionEnqueuer },
  input: { caseRow: CaseRow; eventType: string; data: Record<string, unknown>; cause: Cause },
): Promise<CaseEventRow> {
  const { caseRow, eventType, data, cause } = input;
  const caseEvent = await appendCaseEvent(tx, {
    eventId: deps.ids.next('evt'),
    caseId: caseRow.case_id,
    orgId: caseRow.org_id,
    environment: caseRow.environment,
    eventType,
    data,
    createdAt: deps.clock.now(),
  });
  await enqueueEventEffects(tx, deps, { caseRow, caseEvent, cause });
  // Every change to a case records an event; the stored queue position follows from it.
  beforeCommit(tx, `queue:${caseRow.case_id}`, () => refreshQueueProjection(tx, { tenant: tenantOfRow(caseRow), caseId: caseRow.case_id }));
  return caseEvent;
}

/**
 * The webhook outbox rows and action calls a case event causes, in the event's transaction. For
 * callers that write events themselves (session creation writes its two in one statement).
 */
export async function enqueueEventEffects(
  tx: Tx,
  deps: { enqueueWebhook: WebhookEnqueuer; enqueueActions: ActionEnqueuer },
  input: { caseRow: CaseRow; caseEvent: CaseEventRow; cause: Cause },
): Promise<void> {
  const { caseRow, caseEvent, cause } = input;
  if (WEBHOOK_CASE_EVENTS.has(caseEvent.event_type)) await deps.enqueueWebhook(tx, { caseRow, caseEvent, cause });
  if (ACTION_TRIGGER_EVENTS.has(caseEvent.event_type)) await deps.enqueueActions(tx, { caseRow, caseEvent });
}
