import type { Deps } from '../deps.ts';
import type { OutboundRequest } from '../../net/safe-fetch.ts';
import type { ConnectorRow } from '../../storage/connectors.ts';
import { fail, ok, type Result } from '../errors.ts';
import { inputTarget } from '../case-types/action-validation.ts';
import { openConnectorSecret } from './connectors.ts';
import type { ConnectorOperation } from './manifest.ts';

export const CONNECTOR_USER_AGENT = 'Dossier-Connectors/1.0';

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
