import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps.ts';
import type { OutboundHttp } from '../../net/safe-fetch.ts';
import { findConnector } from '../../storage/connectors.ts';
import { fail, ok, type Result } from '../errors.ts';
import { buildOperationRequest } from './operation-request.ts';
import { connectorNotFound } from './connectors.ts';
import type { ConnectorOperation } from './manifest.ts';
import type { Tenant } from '../../ports/tenant.ts';

/** How much of the answer a test shows: enough to see that the import is wired correctly. */
const EXCERPT_CHARS = 2_000;

export interface OperationTestResult {
  success: boolean;
  method: string;
  url: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

/**
 * Calls one operation now with sample inputs, through the SSRF-safe client, and reports what came
 * back. It is a real call (the customer's API sees it, with `Idempotency-Key: test:<uuid>`), so it
 * needs connectors:write. An unreachable or failing API is a 200 with `success: false`, as the
 * webhook test answers.
 */
export async function testConnectorOperation(
  deps: Pick<Deps, 'db' | 'config'> & { secret: string; http: OutboundHttp },
  input: Tenant & { connectorKey: string; operationId: string; inputs: Record<string, unknown> },
): Promise<Result<OperationTestResult>> {
  const connector = await findConnector(deps.db, input, input.connectorKey);
  if (!connector) return connectorNotFound(input.connectorKey);
  const operation = (connector.operations as ConnectorOperation[]).find((o) => o.operation_id === input.operationId);
  if (!operation) return fail('not_found', `Connector "${input.connectorKey}" has no operation "${input.operationId}".`);
  const missing = operation.parameters.filter((p) => p.required && !(p.name in input.inputs)).map((p) => p.name);
  if (missing.length > 0) return fail('invalid_request', `inputs lacks the required parameter${missing.length === 1 ? '' : 's'} ${missing.join(', ')}.`);
  const request = buildOperationRequest(deps, { connector, operation, values: new Map(Object.entries(input.inputs)), idempotencyKey: `test:${randomUUID()}` });
  if (!request.ok) return fail('invalid_request', `The operation cannot be called: ${request.message}.`);
  const result = await deps.http.fetch(request.value);
  const answered = result.ok || result.status !== undefined;
  return ok({
    success: result.ok,
    method: request.value.method,
    url: request.value.url,
    status_code: result.status ?? null,
    duration_ms: result.durationMs,
    error: result.ok ? null : result.message,
    response_excerpt: answered ? result.bodyExcerpt.slice(0, EXCERPT_CHARS) : null,
  });
}
