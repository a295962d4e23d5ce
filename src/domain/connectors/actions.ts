import type { Deps } from '../deps.ts';
import type { FetchResult, OutboundRequest } from '../../net/safe-fetch.ts';
import type { CaseRow } from '../../storage/cases.ts';
import {
  insertConnectorCall,
  lockCallOfCase,
  recordCallOutcomeUnscoped,
  requeueFailedCall,
  setCaseStructuredInput,
  type ConnectorCallRow,
} from '../../storage/connector-calls.ts';
import { findConnector, type ConnectorRow } from '../../storage/connectors.ts';
import { inTransaction, inTransactionResult } from '../../storage/unit-of-work.ts';
import type { ActionNode, ActionTrigger } from '../case-types/definition.ts';
import { recordCaseEvent, type ActionEnqueuer, type Cause } from '../cases/case-events.ts';
import { renderActions } from '../cases/case-record.ts';
import type { CaseState } from '../cases/case-state.ts';
import { lockCaseRow, type WriterDeps } from '../cases/case-writer.ts';
import { loadCaseStateUnscoped, pinnedDefinition } from '../cases/load-case.ts';
import { caseNotFound } from '../cases/read-case.ts';
import { fail, ok, type Result } from '../errors.ts';
import { inputTarget } from './action-validation.ts';
import { openConnectorSecret } from './connectors.ts';
import type { ConnectorOperation } from './manifest.ts';
import { renderTemplate, type TemplateContext } from './templates.ts';
import { tenantOfRow } from '../../ports/tenant.ts';

export const CONNECTOR_USER_AGENT = 'Dossier-Connectors/1.0';

/** Which action triggers a case event fires. */
export function triggersOf(eventType: string, data: Record<string, unknown>): ActionTrigger[] {
  if (eventType === 'intake.submitted') return ['on_submit'];
  if (eventType !== 'case.completed') return [];
  const status = data.case_status;
  const triggers: ActionTrigger[] = ['on_complete'];
  if (status === 'approved') triggers.push('on_approved');
  if (status === 'rejected') triggers.push('on_rejected');
  if (status === 'decision_ready') triggers.push('on_decision_ready');
  return triggers;
}

/**
 * Queues the calls of the action nodes a case event triggers, in the event's transaction: the
 * change, its event and its calls commit together. `onQueued` wakes same-process workers.
 */
export function caseActionEnqueuer(deps: Pick<Deps, 'clock' | 'ids'>, onQueued?: () => void): ActionEnqueuer {
  return async (tx, { caseRow, caseEvent }) => {
    const triggers = triggersOf(caseEvent.event_type, caseEvent.data);
    if (triggers.length === 0) return;
    const definition = await pinnedDefinition(tx, caseRow);
    const nodes = definition.workflow.nodes.filter((n): n is ActionNode => n.type === 'action' && triggers.includes(n.when));
    let queued = 0;
    for (const node of nodes) {
      const added = await insertConnectorCall(tx, {
        callId: deps.ids.next('call'),
        orgId: caseRow.org_id,
        environment: caseRow.environment,
        caseId: caseRow.case_id,
        nodeId: node.node_id,
        connectorKey: node.connector_key,
        operationId: node.operation_id,
        trigger: { event_id: caseEvent.event_id, event_type: caseEvent.event_type, when: node.when },
        now: deps.clock.now(),
      });
      if (added) queued++;
    }
    if (queued > 0) onQueued?.();
  };
}

function templateContext(state: CaseState): TemplateContext {
  return {
    facts: new Map(state.facts.map((f) => [f.factId, f.value])),
    inputs: state.structuredInputs,
    case: {
      case_id: state.caseId,
      case_type_id: state.caseTypeId,
      external_case_id: state.externalCaseId,
      external_applicant_id: state.externalApplicantId,
      external_customer_id: state.externalCustomerId,
    },
  };
}

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  let at = target;
  for (const key of keys.slice(0, -1)) {
    const next = at[key];
    at = (at[key] = next !== null && typeof next === 'object' && !Array.isArray(next) ? next : {}) as Record<string, unknown>;
  }
  at[keys.at(-1)!] = value;
}

/** The auth header of a connector, or why the call cannot be made. */
function authHeaders(connector: { auth_type: string; auth_header_name: string | null }, secret: string | null): Result<Record<string, string>> {
  if (connector.auth_type === 'none') return ok({});
  if (secret === null) return fail('invalid_request', `the connector has no ${connector.auth_type} secret: PUT it with auth.secret`);
  if (connector.auth_type === 'bearer') return ok({ authorization: `Bearer ${secret}` });
  if (connector.auth_type === 'basic') return ok({ authorization: `Basic ${Buffer.from(secret, 'utf8').toString('base64')}` });
  return ok({ [connector.auth_header_name!.toLowerCase()]: secret });
}

export interface PreparedCall {
  request: OutboundRequest;
  storeResponse: ActionNode['store_response'];
}

/**
 * One operation's request from named input values: each goes to the parameter of its name, or
 * into the JSON body (a dotted name nests: `applicant.email`). The auth secret is opened only here.
 */
export function buildOperationRequest(
  deps: Pick<Deps, 'config'> & { secret: string },
  input: { connector: ConnectorRow; operation: ConnectorOperation; values: ReadonlyMap<string, unknown>; idempotencyKey: string },
): Result<OutboundRequest> {
  const { operation } = input;
  let path = operation.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  let body: Record<string, unknown> | undefined;
  for (const [name, value] of input.values) {
    const target = inputTarget(operation, name);
    if (!target) continue;
    const text = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
    if (target.in === 'path') path = path.replaceAll(`{${name}}`, encodeURIComponent(text));
    else if (target.in === 'query') query.append(name, text);
    else if (target.in === 'header') headers[name.toLowerCase()] = text.replace(/[\r\n]/g, ' ');
    else setPath((body ??= {}), name, value ?? null);
  }
  if (operation.request_body_schema && body === undefined) body = {};
  const auth = authHeaders(input.connector, openConnectorSecret(deps.secret, input.connector));
  if (!auth.ok) return auth;
  const search = query.toString();
  return ok({
    url: `${input.connector.base_url}${path}${search ? `?${search}` : ''}`,
    method: operation.method.toUpperCase() as OutboundRequest['method'],
    headers: {
      accept: 'application/json',
      'user-agent': CONNECTOR_USER_AGENT,
      'idempotency-key': input.idempotencyKey,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
      ...auth.value,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    timeoutMs: deps.config.connectorTimeoutMs,
  });
}

/**
 * The request of one attempt: the connector and operation as they are now, inputs rendered from
 * the case as it is now (so an operator's fact correction before a retry is sent), and
 * `Idempotency-Key: <case_id>:<node_id>` so the customer's API can tell a retry from a new request.
 */
export async function prepareCall(deps: Pick<Deps, 'db' | 'config'> & { secret: string }, call: ConnectorCallRow): Promise<Result<PreparedCall>> {
  const scope = { orgId: call.org_id, environment: call.environment };
  const connector = await findConnector(deps.db, scope, call.connector_key);
  if (!connector) return fail('not_found', `connector "${call.connector_key}" no longer exists`);
  const operation = (connector.operations as ConnectorOperation[]).find((o) => o.operation_id === call.operation_id);
  if (!operation) return fail('not_found', `connector "${call.connector_key}" has no operation "${call.operation_id}" any more`);
  const state = await loadCaseStateUnscoped(deps, { caseId: call.case_id });
  const node = state?.definition.workflow.nodes.find((n): n is ActionNode => n.node_id === call.node_id && n.type === 'action');
  if (!state || !node) return fail('not_found', `action node "${call.node_id}" is not in the case's workflow`);
  const context = templateContext(state);
  const values = new Map(Object.entries(node.inputs).map(([name, template]) => [name, renderTemplate(template, context)]));
  const request = buildOperationRequest(deps, { connector, operation, values, idempotencyKey: `${call.case_id}:${call.node_id}` });
  if (!request.ok) return request;
  return ok({ request: request.value, storeResponse: node.store_response });
}

/** `/id`, `/data/0/id` (JSON pointer) or `$.data[0].id`. */
export function valueAtPath(document: unknown, path: string): unknown {
  const keys = path.startsWith('/')
    ? path.slice(1).split('/').map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'))
    : path.replace(/^\$\.?/, '').replace(/\[(\d+)\]/g, '.$1').split('.').filter((k) => k !== '');
  let at = document;
  for (const key of keys) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

export interface AttemptDecision {
  status: 'succeeded' | 'retry_scheduled' | 'failed';
  attemptCount: number;
  nextAttemptAt: Date | null;
}

/** Bounded retries: one attempt more than CONNECTOR_RETRY_DELAYS has delays, then `failed`. */
export function decideAfterCallAttempt(input: { attemptCountBefore: number; succeeded: boolean; now: Date; retryDelaysSeconds: readonly number[] }): AttemptDecision {
  const attemptCount = input.attemptCountBefore + 1;
  if (input.succeeded) return { status: 'succeeded', attemptCount, nextAttemptAt: null };
  const delay = input.retryDelaysSeconds[attemptCount - 1];
  if (delay === undefined) return { status: 'failed', attemptCount, nextAttemptAt: null };
  return { status: 'retry_scheduled', attemptCount, nextAttemptAt: new Date(input.now.getTime() + delay * 1000) };
}

export type CallAttempt =
  | { prepared: PreparedCall; result: FetchResult }
  | { prepared: null; error: string };

/**
 * Records one attempt under the lease guard and, in the same transaction, its case event
 * (`connector.call_succeeded` / `connector.call_failed`: status code and duration, never a body),
 * the stored response value, and so the queue position (a final failure is an exception).
 * Returns false when the lease was lost (another worker's attempt counts).
 */
export async function recordCallAttempt(
  deps: WriterDeps & Pick<Deps, 'db'>,
  input: { workerId: string; call: ConnectorCallRow; attemptedAt: Date; attempt: CallAttempt; retryDelaysSeconds: readonly number[] },
): Promise<{ recorded: boolean; decision: AttemptDecision }> {
  const { call, attempt } = input;
  const result = attempt.prepared ? attempt.result : null;
  const succeeded = result?.ok === true;
  const now = deps.clock.now();
  const decision = decideAfterCallAttempt({ attemptCountBefore: call.attempt_count, succeeded, now, retryDelaysSeconds: input.retryDelaysSeconds });
  const error = attempt.prepared ? (attempt.result.ok ? null : attempt.result.message) : attempt.error;
  let stored: { as: string; value: unknown } | undefined;
  if (succeeded && attempt.prepared?.storeResponse && result?.ok) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(result.body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    stored = { as: attempt.prepared.storeResponse.as, value: valueAtPath(parsed, attempt.prepared.storeResponse.field) };
  }
  const externalReference = stored?.as === 'external_reference' && stored.value !== undefined && stored.value !== null ? String(stored.value).slice(0, 500) : null;
  const recorded = await inTransaction(deps.db, async (tx) => {
    const caseRow = await lockCaseRow(tx, { tenant: tenantOfRow(call), caseId: call.case_id });
    const row = await recordCallOutcomeUnscoped(
      tx,
      input.workerId,
      {
        callId: call.call_id,
        attemptNumber: call.total_attempts + 1,
        attemptedAt: input.attemptedAt,
        statusCode: result?.status ?? null,
        durationMs: result?.durationMs ?? 0,
        error: error?.slice(0, 500) ?? null,
        status: decision.status,
        attemptCount: decision.attemptCount,
        nextAttemptAt: decision.nextAttemptAt,
        externalReference,
      },
      now,
    );
    if (!row || !caseRow) return false;
    if (stored && stored.as.startsWith('structured_input:') && stored.value !== undefined) {
      await setCaseStructuredInput(tx, tenantOfRow(call), call.case_id, stored.as.slice('structured_input:'.length), stored.value, now);
    }
    const cause: Cause = { traceId: `job:connector_call:${call.call_id}`, idempotencyKey: null };
    const data = {
      node_id: call.node_id,
      connector_key: call.connector_key,
      operation_id: call.operation_id,
      attempt: decision.attemptCount,
      status_code: result?.status ?? null,
      duration_ms: result?.durationMs ?? 0,
    };
    if (succeeded) {
      await recordCaseEvent(tx, deps, { caseRow, eventType: 'connector.call_succeeded', data: { ...data, ...(stored ? { stored_as: stored.as } : {}) }, cause });
    } else {
      await recordCaseEvent(tx, deps, {
        caseRow,
        eventType: 'connector.call_failed',
        data: { ...data, error: error?.slice(0, 500) ?? null, final: decision.status === 'failed', next_attempt_at: decision.nextAttemptAt?.toISOString() ?? null },
        cause,
      });
    }
    return true;
  });
  return { recorded, decision };
}

/**
 * POST /api/v1/cases/{id}/actions/{node_id}/retry: a failed call goes back to the queue with a
 * fresh budget, the same Idempotency-Key, and inputs rendered again when it is sent.
 */
export async function retryAction(
  deps: WriterDeps & Pick<Deps, 'db'>,
  input: { orgId: string; environment: CaseRow['environment']; caseId: string; nodeId: string; actor: string },
): Promise<Result<ReturnType<typeof renderActions>[number]>> {
  const outcome = await inTransactionResult(deps.db, async (tx) => {
    const caseRow = await lockCaseRow(tx, { tenant: input, caseId: input.caseId });
    if (!caseRow) return caseNotFound(input.caseId);
    const call = await lockCallOfCase(tx, input, input.caseId, input.nodeId);
    if (!call) return fail('not_found', `Case ${input.caseId} has no started action "${input.nodeId}".`);
    if (call.status !== 'failed') return fail('invalid_request', `Action "${input.nodeId}" is ${call.status}: only a failed action can be retried.`);
    await requeueFailedCall(tx, input, call.call_id, deps.clock.now());
    await recordCaseEvent(tx, deps, {
      caseRow,
      eventType: 'connector.call_retried',
      data: { node_id: input.nodeId, actor: input.actor },
      cause: { traceId: `retry:${call.call_id}`, idempotencyKey: null },
    });
    return ok(null);
  });
  if (!outcome.ok) return outcome;
  const state = await loadCaseStateUnscoped(deps, { caseId: input.caseId });
  const action = state && renderActions(state).find((a) => a.node_id === input.nodeId);
  return action ? ok(action) : caseNotFound(input.caseId);
}
