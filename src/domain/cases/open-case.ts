import type { Environment } from '../../config.ts';
import type { Deps } from '../deps.ts';
import { insertCase, insertFacts, type CaseRow } from '../../storage/cases.ts';
import { toJsonb } from '../../storage/json.ts';
import type { Tx } from '../../storage/schema.ts';
import type { CaseTypeDefinition } from '../case-types/definition.ts';
import { recordCaseEvent, type ActionEnqueuer, type Cause, type WebhookEnqueuer } from './case-events.ts';
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
 * Creates a case pinned to a workflow version, with one `pending` fact per fact of its type, and
 * its `case.created` event. A session's case starts with the applicant; a case created by
 * /process has no applicant and starts processing its document.
 */
export async function openCase(
  tx: Tx,
  deps: Pick<Deps, 'clock' | 'ids'> & { enqueueWebhook: WebhookEnqueuer; enqueueActions: ActionEnqueuer },
  input: OpenCaseInput,
): Promise<CaseRow> {
  const now = deps.clock.now();
  const runtimeStatus: RuntimeStatus = input.origin === 'session' ? 'intake_in_progress' : 'processing';
  const firstNode = input.definition.workflow.nodes[0]!;
  const row = await insertCase(tx, {
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
    metadata: toJsonb(input.metadata),
    locale: input.locale,
    structured_inputs: toJsonb(input.structuredInputs),
    prefill: toJsonb(input.prefill),
    current_node_id: firstNode.node_id,
    current_gate_id: null,
    gate_results: toJsonb([]),
    case_status: null,
    decision_reason: null,
    completed_at: null,
    handoff_state: null,
    handoff_delivery_id: null,
    handoff_acknowledged_at: null,
    last_event_cursor: 0,
    status_changed_at: now,
    // Written properly by refreshQueueProjection below, once the facts exist.
    queue_category: 'intake',
    queue_status: 'waiting_on_applicant',
    queue_row: toJsonb({}),
    created_at: now,
    updated_at: now,
  });
  await insertFacts(
    tx,
    input.definition.facts.map((f) => ({
      case_id: row.case_id,
      fact_id: f.fact_id,
      org_id: input.orgId,
      environment: input.environment,
      fact_label: f.label,
      status: 'pending' as const,
      value: null,
      candidate_id: null,
      anchor_match_quality: null,
      source: null,
      reason_codes: toJsonb([]),
      provenance: toJsonb([]),
      evidence: toJsonb([]),
      verification_metadata: toJsonb([]),
      updated_at: now,
    })),
  );
  await recordCaseEvent(
    tx,
    deps,
    row,
    'case.created',
    { case_type_id: input.caseTypeId, workflow_version: input.workflowVersion, origin: input.origin, runtime_status: runtimeStatus },
    input.cause,
  );
  return row;
}
