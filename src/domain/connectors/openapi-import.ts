import type { Environment } from '../../config.ts';
import { checkOutboundUrl } from '../../net/address-policy.ts';
import type { OutboundHttp } from '../../net/safe-fetch.ts';
import { fail, ok, type Result } from '../errors.ts';
import { putConnector, validateManifest, type ConnectorDeps, type ConnectorView } from './connectors.ts';
import { HTTP_METHODS, type ConnectorOperation, type HttpMethod } from './manifest.ts';
import { fetchOpenApiDocument, loadOpenApiDocument, parseDocumentText, type OpenApiDocument } from './openapi-document.ts';

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

export type ImportDeps = ConnectorDeps & { http: OutboundHttp; openApiFetch?: { timeoutMs?: number; maxBytes?: number } };

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const JSON_MEDIA = /^application\/([\w.+-]+\+)?json\b/i;

/** Deterministic id for an operation without one: method and path, e.g. `get_pets_petId`. */
export function deriveOperationId(method: string, path: string): string {
  const words = path.split('/').map((s) => s.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '')).filter(Boolean);
  return [method.toLowerCase(), ...words].join('_').slice(0, 128);
}

/** An operationId the manifest accepts: other characters become `_`. */
function normaliseOperationId(id: string): string {
  const cleaned = id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 128);
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`.slice(0, 128);
}

function jsonSchemaOf(content: unknown): Obj | undefined {
  if (!isObject(content)) return undefined;
  const media = Object.keys(content).find((m) => JSON_MEDIA.test(m));
  if (!media) return undefined;
  const entry = content[media];
  return isObject(entry) && isObject(entry.schema) ? entry.schema : {};
}

/** The server the connector calls: `base_url` when given, else the document's first usable one. */
function chooseBaseUrl(doc: OpenApiDocument, input: OpenApiImportInput, allowPrivateNetwork: boolean): Result<string> {
  if (input.base_url !== undefined) return ok(input.base_url);
  const servers = Array.isArray(doc.servers) ? doc.servers.filter(isObject) : [];
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
function mapSecurity(doc: OpenApiDocument, operations: Obj[]): MappedAuth {
  const schemes = isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
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

/** The operations of the document in the manifest's format, and those left out with why. */
function collectOperations(doc: OpenApiDocument): { operations: (ConnectorOperation & { source: Obj })[]; nonJson: string[]; collisions: string[] } {
  const operations: (ConnectorOperation & { source: Obj })[] = [];
  const nonJson: string[] = [];
  const ids = new Map<string, string>();
  const collisions: string[] = [];
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    if (!isObject(rawItem)) continue;
    const shared = Array.isArray(rawItem.parameters) ? rawItem.parameters.filter(isObject) : [];
    for (const method of HTTP_METHODS) {
      const op = rawItem[method];
      if (!isObject(op)) continue;
      const operationId = typeof op.operationId === 'string' && op.operationId.trim() !== '' ? normaliseOperationId(op.operationId) : deriveOperationId(method, path);
      const where = `${method.toUpperCase()} ${path}`;
      const previous = ids.get(operationId);
      if (previous) collisions.push(`"${operationId}" (${previous} and ${where})`);
      ids.set(operationId, where);
      const own = Array.isArray(op.parameters) ? op.parameters.filter(isObject) : [];
      const byKey = new Map<string, Obj>();
      for (const p of [...shared, ...own]) byKey.set(`${String(p.in)}:${String(p.name)}`, p);
      const parameters = [...byKey.values()]
        .filter((p) => (p.in === 'path' || p.in === 'query' || p.in === 'header') && typeof p.name === 'string')
        .filter((p) => !(p.in === 'header' && ['authorization', 'content-type', 'accept', 'idempotency-key'].includes(String(p.name).toLowerCase())))
        .map((p) => ({
          name: p.name as string,
          in: p.in as 'path' | 'query' | 'header',
          required: p.in === 'path' ? true : p.required === true,
          schema: isObject(p.schema) ? p.schema : {},
        }));
      const operation: ConnectorOperation & { source: Obj } = { operation_id: operationId, method: method as HttpMethod, path, parameters, source: op };
      const summary = typeof op.summary === 'string' ? op.summary : typeof op.description === 'string' ? op.description : undefined;
      if (summary) operation.summary = summary.slice(0, 1000);
      const body = isObject(op.requestBody) ? op.requestBody : undefined;
      if (body && method !== 'get' && method !== 'delete') {
        const schema = jsonSchemaOf(body.content);
        if (!schema) {
          nonJson.push(operationId);
          continue;
        }
        operation.request_body_schema = schema;
      }
      const responses = isObject(op.responses) ? op.responses : {};
      const success = Object.keys(responses).sort().find((s) => /^2(\d\d|XX)$/i.test(s));
      const response = success && isObject(responses[success]) ? jsonSchemaOf(responses[success].content) : undefined;
      if (response) operation.response_schema = response;
      operations.push(operation);
    }
  }
  return { operations, nonJson, collisions };
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
  const loaded = await loadOpenApiDocument(parsed.value);
  if (!loaded.ok) return loaded;
  const doc = loaded.value;

  const base = chooseBaseUrl(doc, input, deps.config.allowPrivateNetwork);
  if (!base.ok) return base;
  const { operations: all, nonJson, collisions } = collectOperations(doc);
  if (collisions.length > 0) return fail('invalid_openapi_connector', `operationIds collide: ${collisions.slice(0, 5).join('; ')}. Give each operation its own operationId.`);

  const skipped: SkippedOperation[] = [];
  let operations = all;
  if (input.include_operations !== undefined) {
    const wanted = new Set(input.include_operations);
    const nonJsonWanted = nonJson.filter((id) => wanted.has(id));
    if (nonJsonWanted.length > 0) {
      return fail('invalid_openapi_connector', `Only non-JSON request bodies: ${nonJsonWanted.join(', ')} cannot be called with JSON. Leave them out of include_operations.`);
    }
    const unknown = [...wanted].filter((id) => !all.some((o) => o.operation_id === id));
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
    const mapped = mapSecurity(doc, operations.map((o) => o.source));
    if (!mapped.ok) return fail('invalid_openapi_connector', mapped.message);
    auth = mapped.auth;
  }
  const info = isObject(doc.info) ? doc.info : {};
  const manifest = {
    connector_key: input.connector_key,
    name: input.name ?? (typeof info.title === 'string' && info.title.trim() !== '' ? info.title.trim().slice(0, 200) : input.connector_key),
    base_url: base.value,
    auth,
    operations: operations.map(({ source: _, ...op }) => op),
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
