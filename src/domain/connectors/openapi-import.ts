import type { Environment } from '../../config.ts';
import { checkOutboundUrl } from '../../net/address-policy.ts';
import type { OutboundHttp } from '../../net/safe-fetch.ts';
import { fail, ok, type Result } from '../errors.ts';
import { putConnector, validateManifest, type ConnectorDeps, type ConnectorView } from './connectors.ts';
import type { OpenApiDigest, OpenApiReader } from './openapi-digest.ts';
import { fetchOpenApiDocument, parseDocumentText } from './openapi-document.ts';


export interface OpenApiImportInput {
  orgId: string;
  environment: Environment;
  connector_key?: string | undefined;
  openapi_url?: string | undefined;
  openapi_json?: string | undefined;
  openapi?: unknown;
  name?: string | undefined;
  auth?: unknown;
  base_url?: string | undefined;
  include_operations?: string[] | undefined;
}

export interface SkippedOperation {
  operation_id: string;
  reason: string;
}

export type ImportDeps = ConnectorDeps & { http: OutboundHttp; openApi: OpenApiReader; openApiFetch?: { timeoutMs?: number; maxBytes?: number } };

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The server the connector calls: `base_url` when given, else the document's first usable one. */
function chooseBaseUrl(doc: OpenApiDigest, input: OpenApiImportInput, allowPrivateNetwork: boolean): Result<string> {
  if (input.base_url !== undefined) return ok(input.base_url);
  const servers = doc.servers.filter(isObject);
  const tried: string[] = [];
  for (const server of servers) {
    if (typeof server.url !== 'string') continue;
    // Server variables take their defaults.
    const vars = isObject(server.variables) ? server.variables : {};
    const raw = server.url.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const v = vars[name];
      return isObject(v) && typeof v.default === 'string' ? v.default : `{${name}}`;
    });
    let absolute: string;
    try {
      absolute = input.openapi_url ? new URL(raw, input.openapi_url).toString() : new URL(raw).toString();
    } catch {
      tried.push(raw);
      continue;
    }
    if (checkOutboundUrl(absolute, { allowPrivateNetwork }).ok && !absolute.includes('{')) return ok(absolute.replace(/\/+$/, ''));
    tried.push(raw);
  }
  const detail = tried.length === 0 ? 'the document lists no servers' : `none of its servers is usable (${tried.slice(0, 3).join(', ')})`;
  return fail(
    'invalid_openapi_connector',
    `No usable absolute https server: ${detail}${input.openapi_url ? '' : '; a relative server URL needs openapi_url to resolve against'}. Give base_url.`,
  );
}

type MappedAuth = { ok: true; auth: Obj } | { ok: false; message: string };

/** The document's security, mapped to the manifest's auth: bearer, apiKey in a header, basic, none. */
function mapSecurity(doc: OpenApiDigest, operations: OpenApiDigest['operations']): MappedAuth {
  const schemes = doc.securitySchemes;
  const requirements = [doc.security, ...operations.map((o) => o.security)].filter(Array.isArray).flat().filter(isObject);
  const names = [...new Set(requirements.flatMap((r) => Object.keys(r)))];
  if (names.length === 0) return { ok: true, auth: { type: 'none' } };
  const unmappable: string[] = [];
  for (const name of names) {
    const scheme = schemes[name];
    if (!isObject(scheme)) {
      unmappable.push(`${name} (not defined)`);
      continue;
    }
    const httpScheme = typeof scheme.scheme === 'string' ? scheme.scheme.toLowerCase() : '';
    if (scheme.type === 'http' && httpScheme === 'bearer') return { ok: true, auth: { type: 'bearer' } };
    if (scheme.type === 'http' && httpScheme === 'basic') return { ok: true, auth: { type: 'basic' } };
    if (scheme.type === 'apiKey' && scheme.in === 'header' && typeof scheme.name === 'string') return { ok: true, auth: { type: 'header', header_name: scheme.name } };
    unmappable.push(`${name} (${String(scheme.type)}${scheme.in ? ` in ${String(scheme.in)}` : ''})`);
  }
  return {
    ok: false,
    message: `Security scheme ${unmappable.join(', ')} cannot be mapped (bearer, apiKey in a header, basic or none are); give auth, e.g. {"type":"bearer","secret":"<static token>"} for OAuth2.`,
  };
}

/**
 * Generates a connector from an OpenAPI 3.0/3.1 JSON document and stores it under
 * `connector_key` (issue 14). The codes, in the order they are decided: missing_connector_key,
 * missing_openapi_spec, openapi_fetch_failed, openapi_yaml_not_supported, invalid_openapi_spec,
 * invalid_openapi_connector, then the manifest's own invalid_connector_payload.
 */
export async function importOpenApiConnector(
  deps: ImportDeps,
  input: OpenApiImportInput,
): Promise<Result<{ connector: ConnectorView; created: boolean; skipped_operations: SkippedOperation[] }>> {
  if (input.connector_key === undefined || input.connector_key.trim() === '') return fail('missing_connector_key', 'connector_key is required.');
  const given = [input.openapi_url, input.openapi_json, input.openapi].filter((v) => v !== undefined && v !== null && v !== '');
  if (given.length === 0) return fail('missing_openapi_spec', 'Give the OpenAPI document as exactly one of openapi_url, openapi_json (a string) or openapi (an object).');
  if (given.length > 1) return fail('invalid_request', 'Give exactly one of openapi_url, openapi_json or openapi, not several.');

  let parsed: Result<unknown>;
  if (input.openapi_url !== undefined && input.openapi_url !== '') parsed = await fetchOpenApiDocument(deps.http, input.openapi_url, deps.openApiFetch);
  else if (input.openapi_json !== undefined && input.openapi_json !== '') parsed = await parseDocumentText(input.openapi_json);
  else parsed = ok(input.openapi);
  if (!parsed.ok) return parsed;
  const read = await deps.openApi.read({ value: parsed.value, include: input.include_operations });
  if (!read.ok) return read;
  const doc = read.value;

  const base = chooseBaseUrl(doc, input, deps.config.allowPrivateNetwork);
  if (!base.ok) return base;
  const { operations: all, nonJson, collisions } = doc;
  if (collisions.length > 0) return fail('invalid_openapi_connector', `operationIds collide: ${collisions.slice(0, 5).join('; ')}. Give each operation its own operationId.`);

  const skipped: SkippedOperation[] = [];
  let operations = all;
  if (input.include_operations !== undefined) {
    const wanted = new Set(input.include_operations);
    const nonJsonWanted = nonJson.filter((id) => wanted.has(id));
    if (nonJsonWanted.length > 0) {
      return fail('invalid_openapi_connector', `Only non-JSON request bodies: ${nonJsonWanted.join(', ')} cannot be called with JSON. Leave them out of include_operations.`);
    }
    const unknown = [...wanted].filter((id) => !doc.operationIds.includes(id));
    if (unknown.length > 0) return fail('invalid_openapi_connector', `include_operations names operations the document does not have: ${unknown.slice(0, 10).join(', ')}.`);
    operations = all.filter((o) => wanted.has(o.operation_id));
  } else {
    skipped.push(...nonJson.map((id) => ({ operation_id: id, reason: 'only non-JSON request bodies' })));
  }
  if (operations.length === 0) {
    const why = nonJson.length > 0 && all.length === 0 ? `only non-JSON request bodies (${nonJson.slice(0, 5).join(', ')})` : 'the document has no GET, POST, PUT, PATCH or DELETE operations';
    return fail('invalid_openapi_connector', `No operations left after filtering: ${input.include_operations?.length === 0 ? 'include_operations is empty' : why}.`);
  }

  let auth: unknown = input.auth;
  if (auth === undefined) {
    const mapped = mapSecurity(doc, operations);
    if (!mapped.ok) return fail('invalid_openapi_connector', mapped.message);
    auth = mapped.auth;
  }
  const manifest = {
    connector_key: input.connector_key,
    name: input.name ?? (doc.title !== undefined && doc.title.trim() !== '' ? doc.title.trim().slice(0, 200) : input.connector_key),
    base_url: base.value,
    auth,
    operations: operations.map(({ security: _, ...op }) => op),
  };
  const valid = validateManifest(deps, manifest);
  if (!valid.ok) {
    // Problems in what the caller gave (the key, auth, base_url) are theirs; others are the document's.
    if (valid.code === 'invalid_connector_payload' && !/\$\.(connector_key|auth|base_url)\b/.test(valid.message)) {
      return fail('invalid_openapi_connector', `The generated connector is not valid: ${valid.message}`);
    }
    return valid;
  }
  const put = await putConnector(deps, { orgId: input.orgId, environment: input.environment, manifest: valid.value });
  if (!put.ok) return put;
  return ok({ ...put.value, skipped_operations: skipped });
}
