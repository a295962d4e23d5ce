import { z } from 'zod';
import { checkOutboundUrl } from '../../net/address-policy.ts';
import { jsonPath, type DefinitionProblem } from '../case-types/definition.ts';

/**
 * The connector manifest (issue 14). The OpenAPI import produces exactly this format, so a
 * generated connector can be read, edited and PUT back: the read-only fields a GET adds
 * (`version`, timestamps, `auth.secret_set`) are accepted and ignored for that round trip.
 */
export const CONNECTOR_KEY_PATTERN = /^[a-z][a-z0-9_]{1,63}$/;
export const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
export const AUTH_TYPES = ['none', 'bearer', 'header', 'basic'] as const;
export const PARAMETER_LOCATIONS = ['path', 'query', 'header'] as const;

/** Headers the call sets itself: an operation may not claim them as parameters. */
export const RESERVED_HEADERS = new Set(['authorization', 'idempotency-key', 'content-type', 'content-length', 'host', 'user-agent']);

export const connectorKeySchema = z
  .string()
  .regex(CONNECTOR_KEY_PATTERN, 'must match ^[a-z][a-z0-9_]{1,63}$ (lower case, digits and underscores, starting with a letter)')
  .meta({ description: 'Lower case letters, digits and underscores, starting with a letter; 2 to 64 characters.', example: 'loan_origination' });

export const operationIdSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/, 'must start with a letter or underscore and contain only letters, digits, _ . -');

const jsonSchemaObject = z.record(z.string(), z.unknown()).meta({ description: 'A JSON Schema (as in the OpenAPI document).' });

const parameterSchema = z.strictObject({
  name: z.string().min(1).max(200),
  in: z.enum(PARAMETER_LOCATIONS),
  required: z.boolean().default(false),
  schema: jsonSchemaObject.default({}),
});

export const operationSchema = z
  .strictObject({
    operation_id: operationIdSchema,
    method: z.enum(HTTP_METHODS),
    path: z.string().startsWith('/', 'must start with /').max(2000),
    summary: z.string().max(1000).optional(),
    parameters: z.array(parameterSchema).max(200).default([]),
    request_body_schema: jsonSchemaObject.optional(),
    response_schema: jsonSchemaObject.optional(),
  })
  .meta({ id: 'ConnectorOperation' });

export const connectorAuthSchema = z
  .strictObject({
    type: z.enum(AUTH_TYPES),
    secret: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .meta({ description: 'bearer: the token; header: the header value; basic: `user:password`. Write-only: sealed at rest, never returned.' }),
    header_name: z.string().regex(/^[A-Za-z0-9-]{1,100}$/, 'must be an HTTP header name').optional().meta({ description: 'For type header.' }),
    secret_set: z.boolean().optional().meta({ description: 'Read-only (ignored on input).' }),
  })
  .meta({ id: 'ConnectorAuth' });

export const connectorManifestSchema = z
  .strictObject({
    connector_key: connectorKeySchema,
    name: z.string().trim().min(1).max(200),
    base_url: z.string().max(2000).meta({ description: 'Absolute https URL the operation paths are appended to.', example: 'https://los.example.com/api/v2' }),
    auth: connectorAuthSchema.default({ type: 'none' }),
    operations: z.array(operationSchema).min(1).max(500),
    version: z.number().int().optional().meta({ description: 'Read-only (ignored on input).' }),
    created_at: z.string().optional().meta({ description: 'Read-only (ignored on input).' }),
    updated_at: z.string().optional().meta({ description: 'Read-only (ignored on input).' }),
  })
  .meta({
    id: 'ConnectorManifest',
    example: {
      connector_key: 'loan_origination',
      name: 'Loan origination system',
      base_url: 'https://los.example.com/api/v2',
      auth: { type: 'bearer', secret: 'los_live_token' },
      operations: [
        {
          operation_id: 'createApplication',
          method: 'post',
          path: '/applications',
          summary: 'Create a loan application',
          parameters: [],
          request_body_schema: { type: 'object', properties: { applicant_name: { type: 'string' }, reference: { type: 'string' } }, required: ['applicant_name'] },
          response_schema: { type: 'object', properties: { id: { type: 'string' } } },
        },
      ],
    },
  });

export type ConnectorManifest = z.output<typeof connectorManifestSchema>;
export type ConnectorOperation = z.output<typeof operationSchema>;
export type ConnectorAuthInput = z.output<typeof connectorAuthSchema>;

type Loose = Record<string, unknown>;
const asObject = (v: unknown): Loose => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : {});
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/**
 * The rules across fields. They read the raw input defensively, so they are reported alongside
 * the shape problems of the same manifest (zod runs refinements only once the shape is valid).
 */
function crossFieldProblems(input: unknown): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  const add = (path: PropertyKey[], message: string) => problems.push({ path: jsonPath(path), message });
  const m = asObject(input);
  const seen = new Set<unknown>();
  asArray(m.operations).forEach((raw, i) => {
    const op = asObject(raw);
    if (typeof op.operation_id === 'string') {
      if (seen.has(op.operation_id)) add(['operations', i, 'operation_id'], `duplicate operation_id "${op.operation_id}"`);
      seen.add(op.operation_id);
    }
    const path = typeof op.path === 'string' ? op.path : '';
    const templated = [...path.matchAll(/\{([^{}]+)\}/g)].map((x) => x[1]!);
    const params = asArray(op.parameters).map(asObject);
    for (const name of templated) {
      if (!params.some((p) => p.in === 'path' && p.name === name)) add(['operations', i, 'path'], `path parameter {${name}} is not declared in parameters`);
    }
    params.forEach((p, j) => {
      const name = typeof p.name === 'string' ? p.name : '';
      if (p.in === 'path' && !templated.includes(name)) add(['operations', i, 'parameters', j, 'name'], `path parameter "${name}" does not appear in the path`);
      if (p.in === 'path' && p.required !== true) add(['operations', i, 'parameters', j, 'required'], 'path parameters are required');
      if (p.in === 'header' && RESERVED_HEADERS.has(name.toLowerCase())) add(['operations', i, 'parameters', j, 'name'], `header "${name}" is set by Dossier itself`);
    });
    if (op.request_body_schema !== undefined && (op.method === 'get' || op.method === 'delete')) {
      add(['operations', i, 'request_body_schema'], `a ${String(op.method).toUpperCase()} operation cannot have a request body`);
    }
  });
  const auth = asObject(m.auth);
  const headerName = typeof auth.header_name === 'string' ? auth.header_name : undefined;
  if (auth.type === 'none' && auth.secret !== undefined) add(['auth', 'secret'], 'auth type none takes no secret');
  if (auth.type === 'header' && !headerName) add(['auth', 'header_name'], 'auth type header needs header_name');
  if (auth.type === 'header' && headerName && headerName.toLowerCase() !== 'authorization' && RESERVED_HEADERS.has(headerName.toLowerCase())) add(['auth', 'header_name'], `header "${headerName}" is set by Dossier itself`);
  if (auth.type !== undefined && auth.type !== 'header' && auth.header_name !== undefined) add(['auth', 'header_name'], 'header_name is only for auth type header');
  if (auth.type === 'basic' && typeof auth.secret === 'string' && !auth.secret.includes(':')) add(['auth', 'secret'], 'basic auth secret must be "user:password"');
  return problems;
}

/** A manifest as stored: the read-only fields dropped, base_url normalised. */
export interface ValidManifest {
  connector_key: string;
  name: string;
  base_url: string;
  auth: { type: ConnectorAuthInput['type']; secret?: string; header_name?: string };
  operations: ConnectorOperation[];
}

export type ManifestParse =
  | { ok: true; value: ValidManifest }
  | { ok: false; missingKey: true }
  | { ok: false; missingKey: false; problems: DefinitionProblem[] };

/**
 * Every problem at once, each with its JSON path, as case-type validation does. `base_url` must be
 * https (http too where private networks are allowed: development and tests); no query or fragment.
 */
export function parseConnectorManifest(input: unknown, options: { allowPrivateNetwork: boolean }): ManifestParse {
  const key = input !== null && typeof input === 'object' ? (input as Record<string, unknown>).connector_key : undefined;
  if (key === undefined || key === null || (typeof key === 'string' && key.trim() === '')) return { ok: false, missingKey: true };
  const parsed = connectorManifestSchema.safeParse(input);
  const problems: DefinitionProblem[] = parsed.success ? [] : parsed.error.issues.map((i) => ({ path: jsonPath(i.path), message: i.message }));
  problems.push(...crossFieldProblems(input));
  const rawBase = (input as Record<string, unknown>).base_url;
  let baseUrl = '';
  if (typeof rawBase === 'string') {
    const checked = checkOutboundUrl(rawBase, { allowPrivateNetwork: options.allowPrivateNetwork });
    if (!checked.ok) problems.push({ path: '$.base_url', message: checked.message });
    else if (checked.url.search || checked.url.hash) problems.push({ path: '$.base_url', message: 'must not carry a query or fragment' });
    else baseUrl = checked.url.toString().replace(/\/+$/, '');
  }
  if (problems.length > 0 || !parsed.success) return { ok: false, missingKey: false, problems };
  const m = parsed.data;
  const auth: ValidManifest['auth'] = { type: m.auth.type };
  if (m.auth.secret !== undefined) auth.secret = m.auth.secret;
  if (m.auth.header_name !== undefined) auth.header_name = m.auth.header_name;
  return { ok: true, value: { connector_key: m.connector_key, name: m.name, base_url: baseUrl, auth, operations: m.operations } };
}

/** The message of `invalid_connector_payload`: every problem with its path. */
export function describeProblems(what: string, problems: readonly DefinitionProblem[]): string {
  const n = problems.length;
  return `${what} has ${n} problem${n === 1 ? '' : 's'}: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}.`;
}
