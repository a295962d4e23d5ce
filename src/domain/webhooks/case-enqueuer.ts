import type { Deps } from '../deps.ts';
import type { Tx } from '../../storage/schema.ts';
import { enqueueWebhookEvent } from './outbox.ts';

/** The parts of a case event the outbox needs (structurally the case engine's rows and cause). */
export interface CaseWebhookEvent {
  caseRow: {
    case_id: string;
    org_id: string;
    environment: 'test' | 'live';
    external_case_id: string | null;
    external_applicant_id: string | null;
    external_customer_id: string | null;
  };
  caseEvent: { event_id: string; event_type: string; created_at: Date; data: Record<string, unknown> };
  cause: { traceId: string; idempotencyKey: string | null; sessionId?: string | null };
}

/**
 * Adapts a catalog case event (`case.completed`) to the outbox (`v1.case.completed`), for
 * `AppContext.enqueueWebhook`. `onQueued` runs when deliveries were written, still inside the
 * transaction: the app context passes `() => wake.notify('webhook-deliveries')` so same-process workers
 * start at once (ports/wake.ts says why that is safe before the commit).
 */
export function caseWebhookEnqueuer(deps: Pick<Deps, 'clock' | 'ids'>, onQueued?: () => void) {
  return async (tx: Tx, { caseRow, caseEvent, cause }: CaseWebhookEvent): Promise<void> => {
    const { deliveryIds } = await enqueueWebhookEvent(tx, deps, {
      orgId: caseRow.org_id,
      environment: caseRow.environment,
      eventType: `v1.${caseEvent.event_type}`,
      eventId: caseEvent.event_id,
      caseId: caseRow.case_id,
      sessionId: cause.sessionId ?? null,
      externalCaseId: caseRow.external_case_id,
      externalApplicantId: caseRow.external_applicant_id,
      externalCustomerId: caseRow.external_customer_id,
      idempotencyKey: cause.idempotencyKey,
      traceId: cause.traceId,
      occurredAt: caseEvent.created_at,
      data: caseEvent.data,
    });
    if (deliveryIds.length > 0) onQueued?.();
  };
}
