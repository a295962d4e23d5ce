// The OpenAPI parser (with its JSON schemas and ajv) and yaml load on the first import of a
// connector's document, not at every start: about 1.5 MB of source an idle server never runs (issue 16).
import type { OutboundHttp } from '../../net/safe-fetch.ts';
import { fail, ok, type Result } from '../errors.ts';
import { checkReferences, OPENAPI_LIMITS, validationCopy, type Limits, type RefIndex } from './openapi-refs.ts';

/** Issue 14: an OpenAPI document is fetched with at most 5 MiB and 10 s. */
export const OPENAPI_MAX_BYTES = OPENAPI_LIMITS.maxDocumentChars;
export const OPENAPI_FETCH_TIMEOUT_MS = 10_000;

const YAML_CONTENT_TYPE = /^(application|text)\/(x-)?yaml\b/i;
const CONVERT_YAML = 'YAML is not supported: convert the document to JSON (for example `npx js-yaml openapi.yaml > openapi.json`) and send that.';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Text to a document. Not JSON but a YAML mapping or sequence is YAML (refused with its own
 * code); anything else is neither. A lone YAML scalar (`hello`) is any text at all, not YAML.
 */
export async function parseDocumentText(text: string): Promise<Result<unknown>> {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed === '') return fail('invalid_openapi_spec', 'The OpenAPI document is empty.');
  try {
    return ok(JSON.parse(trimmed));
  } catch {
    let yaml: unknown;
    const { parse: parseYaml } = await import('yaml');
    try {
      yaml = parseYaml(trimmed);
    } catch {
      return fail('invalid_openapi_spec', 'The OpenAPI document is neither JSON nor YAML: it could not be parsed.');
    }
    if (yaml !== null && typeof yaml === 'object') return fail('openapi_yaml_not_supported', CONVERT_YAML);
    return fail('invalid_openapi_spec', 'The OpenAPI document is neither JSON nor YAML: it could not be parsed.');
  }
}

/**
 * Fetches a document with the SSRF-safe client: public https only (unless private networks are
 * allowed), no redirects, one deadline, and a cap on the bytes read. Every refusal says which.
 */
export async function fetchOpenApiDocument(
  http: OutboundHttp,
  url: string,
  limits: { timeoutMs?: number; maxBytes?: number } = {},
): Promise<Result<unknown>> {
  const maxBytes = limits.maxBytes ?? OPENAPI_MAX_BYTES;
  const timeoutMs = limits.timeoutMs ?? OPENAPI_FETCH_TIMEOUT_MS;
  const result = await http.fetch({
    url,
    method: 'GET',
    headers: { accept: 'application/json, application/vnd.oai.openapi+json;q=0.9, */*;q=0.1', 'user-agent': 'Dossier-Connectors/1.0' },
    timeoutMs,
    maxResponseBytes: maxBytes,
  });
  if (!result.ok) {
    const why: Record<typeof result.reason, string> = {
      invalid_url: `is refused by the address policy: the URL ${result.message.replace(/^URL /, '')}`,
      blocked_address: `is refused by the address policy: ${result.message}`,
      timeout: `timed out: no complete answer within ${timeoutMs} ms`,
      connection_failed: `is unreachable: ${result.message}`,
      redirect: `answered ${result.status ?? '3xx'}: redirects are not followed, give the final URL`,
      http_status: `answered HTTP ${result.status ?? '?'}, not 2xx`,
    };
    return fail('openapi_fetch_failed', `openapi_url ${why[result.reason]}.`);
  }
  if (result.truncated) return fail('openapi_fetch_failed', `openapi_url is too large: the document exceeds ${maxBytes / (1024 * 1024)} MiB.`);
  if (YAML_CONTENT_TYPE.test(result.headers['content-type'] ?? '')) return fail('openapi_yaml_not_supported', CONVERT_YAML);
  return parseDocumentText(result.body.toString('utf8'));
}

/**
 * A parsed value to a checked OpenAPI 3.0 or 3.1 document, its references measured and left in
 * place (openapi-refs.ts): nothing is dereferenced into copies. External `$ref`s are refused
 * rather than fetched (the document must be self-contained: bundle it first).
 */
export async function loadOpenApiDocument(value: unknown, limits: Limits = OPENAPI_LIMITS): Promise<Result<RefIndex>> {
  if (!isObject(value)) return fail('invalid_openapi_spec', 'The OpenAPI document must be a JSON object.');
  if (typeof value.swagger === 'string') {
    return fail('invalid_openapi_spec', `This is a Swagger ${value.swagger} document: convert it to OpenAPI 3 first (for example with swagger2openapi, or editor.swagger.io "Convert to OpenAPI 3").`);
  }
  if (typeof value.openapi !== 'string' || !/^3\.[01]\.\d+/.test(value.openapi)) {
    return fail('invalid_openapi_spec', 'Not an OpenAPI 3.0 or 3.1 document: the `openapi` field must be "3.0.x" or "3.1.x".');
  }
  const checked = checkReferences(value, limits);
  if (!checked.ok) return checked;
  // Colliding operationIds are the connector's concern (derived and normalised ids can collide
  // too), answered as invalid_openapi_connector, so the validator only warns about them.
  const options = {
    resolve: { external: false, file: false },
    dereference: { circular: 'ignore' as const },
    validate: { rules: { openapi: { 'duplicate-operation-id': 'warning' as const } } },
    timeoutMs: 5_000,
  };
  const { validate } = await import('@readme/openapi-parser');
  try {
    // The validator dereferences what it is given: it gets the copy whose schema references are `{}`.
    const result = await validate(validationCopy(value) as never, options);
    if (!result.valid) {
      const first = result.errors.slice(0, 3).map((e) => e.message.split('\n')[0]!.trim().replace(/\.+$/, ''));
      return fail('invalid_openapi_spec', `The OpenAPI document is invalid: ${first.join('; ')}${result.errors.length > 3 ? '; …' : ''}.`);
    }
    return checked;
  } catch (err) {
    return fail('invalid_openapi_spec', `The OpenAPI document could not be read: ${((err as Error).message ?? 'unknown error').split('\n')[0]}.`);
  }
}
