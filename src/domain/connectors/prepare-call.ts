import type { Deps } from '../deps.ts';
import type { OutboundRequest } from '../../net/safe-fetch.ts';
import type { ConnectorCallRow } from '../../storage/connector-calls.ts';
import { findConnector } from '../../storage/connectors.ts';
import type { ActionNode } from '../case-types/definition.ts';
import { loadCaseStateUnscoped } from '../cases/load-case.ts';
import { fail, ok, type Result } from '../errors.ts';
import type { ConnectorOperation } from './manifest.ts';
import { buildOperationRequest } from './operation-request.ts';
import { renderTemplate, templateContext } from './templates.ts';

export interface PreparedCall {
  request: OutboundRequest;
  storeResponse: ActionNode['store_response'];
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
