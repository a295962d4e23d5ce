import type { CaseEventRow } from '../storage/case-events.ts';
import type { CaseRow } from '../storage/cases.ts';
import type { Tx } from '../storage/schema.ts';

/**
 * What a recorded case event causes beyond its own row, as ports: the composition root
 * (app-context.ts) supplies the writers, and domain/cases/case-events.ts calls them in the event's
 * transaction. Declared here, not beside recordCaseEvent, so domain/deps.ts names them without
 * importing a domain module (that import closed a circle: deps → case-events → case-writer → deps).
 */

/** What caused a change: carried into webhook envelopes (`idempotency_key`, `trace_id`). */
export interface Cause {
  traceId: string;
  idempotencyKey: string | null;
  sessionId?: string | null;
}

/** Writes the webhook outbox rows of a catalog case event, in the event's transaction. */
export type WebhookEnqueuer = (
  tx: Tx,
  event: { caseRow: CaseRow; caseEvent: CaseEventRow; cause: Cause },
) => Promise<void>;

/** Queues the connector calls of the action nodes a case event triggers, in the event's transaction. */
export type ActionEnqueuer = (tx: Tx, event: { caseRow: CaseRow; caseEvent: CaseEventRow }) => Promise<void>;
