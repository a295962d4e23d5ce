import { fail, ok, type Result } from '../errors.ts';
import { HTTP_METHODS, type ConnectorOperation, type HttpMethod } from './manifest.ts';
import { loadOpenApiDocument } from './openapi-document.ts';
import { bundledChars, bundleSchema, followRef, OPENAPI_LIMITS, type Limits, type RefIndex } from './openapi-refs.ts';

/**
 * What the import needs of a document, read where a hang cannot stall the API (a worker thread,
 * jobs/openapi-reader.ts): its servers, title and security, and its operations in the manifest's
 * format with bounded, self-contained schemas. Plain data, so it crosses the thread boundary.
 */
export interface OpenApiDigest {
  servers: unknown[];
  title: string | undefined;
  /** Scheme name to the scheme object (references followed). */
  securitySchemes: Record<string, unknown>;
  /** The document's security requirements, then each returned operation's. */
  security: unknown[];
  /** Every operation with a JSON (or no) request body, in document order. */
  operationIds: string[];
  /** Operations whose request body has no JSON media type. */
  nonJson: string[];
  collisions: string[];
  /** The operations asked for (all when `include` is undefined), schemas bundled. */
  operations: (ConnectorOperation & { security?: unknown[] })[];
}

export interface OpenApiSource {
  /** The parsed document. */
  value: unknown;
  include?: string[] | undefined;
}

/** The port the import calls: the digest, read in isolation with a deadline and a memory cap. */
export interface OpenApiReader {
  read(source: OpenApiSource): Promise<Result<OpenApiDigest>>;
}

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

interface RawOperation {
  operation: ConnectorOperation & { security?: unknown[] };
  /** Schemas still as written (references unbundled), by where they go. */
  schemas: { set: (bundled: Obj) => void; schema: Obj }[];
}

/** The operations of the document in the manifest's format (schemas unbundled), and those left out with why. */
function collectOperations(index: RefIndex): { raw: RawOperation[]; nonJson: string[]; collisions: string[] } {
  const raw: RawOperation[] = [];
  const nonJson: string[] = [];
  const ids = new Map<string, string>();
  const collisions: string[] = [];
  const paths = isObject(index.doc.paths) ? index.doc.paths : {};
  const follow = (v: unknown): unknown => followRef(index, v);
  for (const [path, pathItem] of Object.entries(paths)) {
    const item = follow(pathItem);
    if (!isObject(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters.map(follow).filter(isObject) : [];
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const operationId = typeof op.operationId === 'string' && op.operationId.trim() !== '' ? normaliseOperationId(op.operationId) : deriveOperationId(method, path);
      const where = `${method.toUpperCase()} ${path}`;
      const previous = ids.get(operationId);
      if (previous) collisions.push(`"${operationId}" (${previous} and ${where})`);
      ids.set(operationId, where);
      const own = Array.isArray(op.parameters) ? op.parameters.map(follow).filter(isObject) : [];
      const byKey = new Map<string, Obj>();
      for (const p of [...shared, ...own]) byKey.set(`${String(p.in)}:${String(p.name)}`, p);
      const schemas: RawOperation['schemas'] = [];
      const parameters = [...byKey.values()]
        .filter((p) => (p.in === 'path' || p.in === 'query' || p.in === 'header') && typeof p.name === 'string')
        .filter((p) => !(p.in === 'header' && ['authorization', 'content-type', 'accept', 'idempotency-key'].includes(String(p.name).toLowerCase())))
        .map((p) => {
          const parameter = { name: p.name as string, in: p.in as 'path' | 'query' | 'header', required: p.in === 'path' ? true : p.required === true, schema: {} as Obj };
          if (isObject(p.schema)) schemas.push({ schema: p.schema, set: (s) => (parameter.schema = s) });
          return parameter;
        });
      const operation: RawOperation['operation'] = { operation_id: operationId, method: method as HttpMethod, path, parameters };
      if (Array.isArray(op.security)) operation.security = op.security;
      const summary = typeof op.summary === 'string' ? op.summary : typeof op.description === 'string' ? op.description : undefined;
      if (summary) operation.summary = summary.slice(0, 1000);
      const body = follow(op.requestBody);
      if (isObject(body) && method !== 'get' && method !== 'delete') {
        const schema = jsonSchemaOf(body.content);
        if (!schema) {
          nonJson.push(operationId);
          continue;
        }
        operation.request_body_schema = {};
        schemas.push({ schema, set: (s) => (operation.request_body_schema = s) });
      }
      const responses = follow(op.responses);
      const responseMap = isObject(responses) ? responses : {};
      const success = Object.keys(responseMap).sort().find((s) => /^2(\d\d|XX)$/i.test(s));
      const response = success ? follow(responseMap[success]) : undefined;
      const responseSchema = isObject(response) ? jsonSchemaOf(response.content) : undefined;
      if (responseSchema) {
        operation.response_schema = {};
        schemas.push({ schema: responseSchema, set: (s) => (operation.response_schema = s) });
      }
      raw.push({ operation, schemas });
    }
  }
  return { raw, nonJson, collisions };
}

/**
 * Checks and digests a parsed document (openapi-document.ts, openapi-refs.ts). The stored size of
 * the operations asked for is counted before any bundle is built, and refused past
 * `limits.maxStoredChars` with the advice to import fewer operations.
 */
export async function digestOpenApiDocument(source: OpenApiSource, limits: Limits = OPENAPI_LIMITS): Promise<Result<OpenApiDigest>> {
  const loaded = await loadOpenApiDocument(source.value, limits);
  if (!loaded.ok) return loaded;
  const index = loaded.value;
  const { doc } = index;
  const { raw, nonJson, collisions } = collectOperations(index);
  const wanted = source.include === undefined ? undefined : new Set(source.include);
  const chosen = raw.filter((r) => wanted === undefined || wanted.has(r.operation.operation_id));
  let chars = 0;
  for (const { operation, schemas } of chosen) {
    chars += JSON.stringify(operation).length;
    for (const { schema } of schemas) chars += bundledChars(index, schema);
    if (chars > limits.maxStoredChars) {
      return fail(
        'invalid_openapi_spec',
        `The OpenAPI document is too large: its operations' schemas, each with the component schemas it refers to, would take more than ${limits.maxStoredChars} characters` +
          `${wanted === undefined ? ' (name fewer operations in include_operations)' : ''}.`,
      );
    }
  }
  for (const { schemas } of chosen) for (const { schema, set } of schemas) set(bundleSchema(index, schema));
  const components = isObject(doc.components) ? doc.components : {};
  const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};
  const info = isObject(doc.info) ? doc.info : {};
  return ok({
    servers: Array.isArray(doc.servers) ? doc.servers : [],
    title: typeof info.title === 'string' ? info.title : undefined,
    securitySchemes: Object.fromEntries(Object.entries(schemes).map(([name, scheme]) => [name, followRef(index, scheme)])),
    security: Array.isArray(doc.security) ? doc.security : [],
    operationIds: raw.map((r) => r.operation.operation_id),
    nonJson,
    collisions,
    operations: chosen.map((r) => r.operation),
  });
}
