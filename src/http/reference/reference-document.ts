import { codeSamples, PATH_PARAM_EXAMPLES, type SampleRequest } from './code-samples.ts';
import { quickStart } from './quick-start.ts';
import { responseDescription } from './response-descriptions.ts';
import { sampleDocumentsReference } from './sample-documents.ts';
import { webhookEventsReference } from './webhook-events.ts';

/**
 * Turns the document generated from the routes' zod schemas into the reference people read and
 * copy from: a description on every response, curl and TypeScript samples on every operation
 * (from the examples the document holds), the webhook events, and a quick start. It adds to the
 * contract; it never changes a schema.
 */

type Json = Record<string, unknown>;
interface Parameter {
  in: string;
  name: string;
  example?: unknown;
  schema?: { example?: unknown };
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Json; example?: unknown }> };
  responses?: Record<string, { description?: string }>;
  security?: unknown[];
  'x-codeSamples'?: unknown;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
/** Operations whose contract requires an Idempotency-Key (spec §4.4, §4.5). */
const IDEMPOTENCY_REQUIRED = new Set(['createSession', 'processDocument']);

export function enrichReference(doc: Json, baseUrl: string): Json {
  const components = (doc.components ?? {}) as { schemas?: Record<string, Json> };
  const schemas = components.schemas ?? {};
  const paths = (doc.paths ?? {}) as Record<string, Partial<Record<(typeof HTTP_METHODS)[number], Operation>>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op?.operationId) continue;
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (!response.description || response.description === 'Default Response') {
          response.description = responseDescription(op.operationId, status) ?? response.description ?? '';
        }
      }
      op['x-codeSamples'] = codeSamples(baseUrl, sampleRequest(path, method, op, schemas));
    }
  }
  const info = doc.info as Json;
  const envelope = (schemas.WebhookEnvelope?.example ?? {}) as Json;
  return {
    ...doc,
    info: { ...info, description: `${String(info.description ?? '')}\n${quickStart(baseUrl)}\n${sampleDocumentsReference(baseUrl)}` },
    tags: [...((doc.tags as Json[]) ?? []), { name: 'Webhook events', description: 'What your endpoint receives: one signed envelope per event (spec §2.9), with each event’s `data`.' }],
    webhooks: webhookEventsReference(envelope),
  };
}

function sampleRequest(path: string, method: string, op: Operation, schemas: Record<string, Json>): SampleRequest {
  const params = op.parameters ?? [];
  const pathParams: Record<string, string> = {};
  const query: Record<string, string | number> = {};
  for (const p of params) {
    const example = p.example ?? p.schema?.example;
    if (p.in === 'path') pathParams[p.name] = String(example ?? PATH_PARAM_EXAMPLES[p.name] ?? p.name);
    // A list's page size is the one query parameter worth showing; filters are in the parameter table.
    if (p.in === 'query' && p.name === 'limit') query.limit = typeof example === 'number' ? example : 20;
  }
  return {
    operationId: op.operationId!,
    method: method.toUpperCase(),
    path,
    pathParams,
    query,
    body: requestBodyExample(op, schemas),
    idempotent: IDEMPOTENCY_REQUIRED.has(op.operationId!),
    public: Array.isArray(op.security) && op.security.length === 0,
  };
}

/** The request body's example: on the media type, on its schema, or on the component it refers to. */
export function requestBodyExample(op: Operation, schemas: Record<string, Json>): unknown {
  const media = op.requestBody?.content?.['application/json'];
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const schema = media.schema ?? {};
  if (schema.example !== undefined) return schema.example;
  const ref = typeof schema.$ref === 'string' ? schema.$ref.replace('#/components/schemas/', '') : undefined;
  return ref ? schemas[ref]?.example : undefined;
}
