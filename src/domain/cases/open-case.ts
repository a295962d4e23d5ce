import type { Environment } from '../../config.ts';
import type { Deps } from '../deps.ts';
import { insertCase, type CaseRow, type FactRow, type NewCaseRow } from '../../storage/cases.ts';
import { pendingFact } from './case-facts.ts';
import { toJsonb } from '../../storage/json.ts';
import type { Tx } from '../../storage/schema.ts';
import type { CaseTypeDefinition } from '../case-types/definition.ts';
import { recordCaseEvent } from './case-events.ts';
import type { ActionEnqueuer, Cause, WebhookEnqueuer } from '../../ports/enqueuers.ts';
import type { RuntimeStatus } from './case-state.ts';

export interface OpenCaseInput {
  orgId: string;
  environment: Environment;
  caseTypeId: string;
  workflowVersion: string;
  definition: CaseTypeDefinition;
  origin: 'session' | 'process';
  externalCaseId: string | null;
  externalApplicantId: string | null;
  externalCustomerId: string | null;
  metadata: Record<string, string>;
  locale: string | null;
  prefill: Record<string, unknown>;
  structuredInputs: Record<string, unknown>;
  cause: Cause;
}

/**
 * The row of a new case, pinned to a workflow version, as it reads back once written (jsonb
 * columns as values), and its facts, every one pending: they are not written (a fact row appears
 * when there is something to say, case-facts.ts) but the queue projection is computed from them. A session's case starts with the
 * applicant; a case created by /process has no applicant and starts processing its document. The
 * queue columns are placeholders until the projection is written.
 */
export function newCaseRows(deps: Pick<Deps, 'clock' | 'ids'>, input: OpenCaseInput): { row: CaseRow; facts: FactRow[] } {
  const now = deps.clock.now();
  const runtimeStatus: RuntimeStatus = input.origin === 'session' ? 'intake_in_progress' : 'processing';
  const firstNode = input.definition.workflow.nodes[0]!;
  const row: CaseRow = {
    case_id: deps.ids.next('case'),
    org_id: input.orgId,
    environment: input.environment,
    case_type_id: input.caseTypeId,
    workflow_id: input.definition.workflow.workflow_id,
    workflow_version: input.workflowVersion,
    operating_mode: input.definition.operating_mode,
    runtime_status: runtimeStatus,
    origin: input.origin,
    external_case_id: input.externalCaseId,
    external_applicant_id: input.externalApplicantId,
    external_customer_id: input.externalCustomerId,
    metadata: input.metadata,
    locale: input.locale,
    structured_inputs: input.structuredInputs,
    prefill: input.prefill,
    current_node_id: firstNode.node_id,
    current_gate_id: null,
    gate_results: [],
    case_status: null,
    decision_reason: null,
    completed_at: null,
    handoff_state: null,
    handoff_delivery_id: null,
    handoff_acknowledged_at: null,
    last_event_cursor: 0,
    status_changed_at: now,
    queue_category: 'intake',
    queue_status: 'waiting_on_applicant',
    queue_row: {},
    assigned_to: null,
    assigned_at: null,
    created_at: now,
    updated_at: now,
  };
  const facts: FactRow[] = input.definition.facts.map((f) => pendingFact(row, f));
  return { row, facts };
}

/** A case row as written: jsonb columns as JSON text (json.ts says why). */
export function caseRowToInsert(row: CaseRow): NewCaseRow {
  return {
    ...row,
    metadata: toJsonb(row.metadata),
    structured_inputs: toJsonb(row.structured_inputs),
    prefill: toJsonb(row.prefill),
    gate_results: toJsonb(row.gate_results),
    queue_row: toJsonb(row.queue_row),
  };
}

/**
 * Creates a case (newCaseRows) and its `case.created` event, statement by statement; the queue
 * projection is written before commit. Session creation writes the same rows in one statement
 * (create-session.ts).
 */
export async function openCase(
  tx: Tx,
  deps: Pick<Deps, 'clock' | 'ids'> & { enqueueWebhook: WebhookEnqueuer; enqueueActions: ActionEnqueuer },
  input: OpenCaseInput,
): Promise<CaseRow> {
  // Its facts are pending and have no rows until something is said about them (case-facts.ts).
  const { row: newRow } = newCaseRows(deps, input);
  const row = await insertCase(tx, caseRowToInsert(newRow));
  await recordCaseEvent(tx, deps, { caseRow: row, eventType: 'case.created', data: caseCreatedData(row), cause: input.cause });
  return row;
}

/** The `case.created` event's data. */
export function caseCreatedData(row: CaseRow): Record<string, unknown> {
  return { case_type_id: row.case_type_id, workflow_version: row.workflow_version, origin: row.origin, runtime_status: row.runtime_status };
}
