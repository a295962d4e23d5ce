import { OPERATIONS } from './generated/catalog.ts';
import type { components, operations } from './generated/openapi.ts';
import type { HttpRequest, RequestOptions, Transport } from './http.ts';
import type { WithResponse } from './response.ts';

/** The operationId of every public operation, from the OpenAPI document. */
export type OperationId = keyof typeof OPERATIONS & keyof operations;

/** A named schema of the OpenAPI document: `Schema<'CaseRecord'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

type JsonContent<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Parameters<Id extends OperationId> = operations[Id]['parameters'];

/** The JSON body an operation takes. */
export type RequestBody<Id extends OperationId> = JsonContent<NonNullable<operations[Id]['requestBody']>>;
/** The path parameters of an operation (`{ case_id: string }`). */
export type PathParams<Id extends OperationId> = NonNullable<Parameters<Id>['path']>;
/** The query parameters of an operation. */
export type QueryParams<Id extends OperationId> = NonNullable<Parameters<Id>['query']>;
/** The body of an operation's successful answer (200, 201 or 202). */
export type ResponseBody<Id extends OperationId> = {
  [S in keyof operations[Id]['responses']]: S extends 200 | 201 | 202 ? JsonContent<operations[Id]['responses'][S]> : never;
}[keyof operations[Id]['responses']];

type PathInput<Id extends OperationId> = [PathParams<Id>] extends [never] ? { path?: never } : { path: PathParams<Id> };
type BodyInput<Id extends OperationId> = [RequestBody<Id>] extends [never]
  ? { body?: never }
  : undefined extends operations[Id]['requestBody']
    ? { body?: RequestBody<Id> }
    : { body: RequestBody<Id> };

/** What a call of one operation takes: its path parameters and body when it has them. */
export type CallInput<Id extends OperationId> = PathInput<Id> &
  BodyInput<Id> & {
    query?: QueryParams<Id>;
    /** Sent as `Idempotency-Key`; makes a POST safe to retry after a failure whose effect is unknown. */
    idempotencyKey?: string;
    options?: RequestOptions;
  };

/**
 * Operations the service documents as repeatable without a key, retried after network failures
 * and 500s like GETs: erasing what is already erased answers the first erasure again,
 * acknowledging an acknowledged handoff answers `already_acknowledged: true`, and expiring an
 * expired session answers the same session (a key would not change those answers, so the client
 * sends none of its own).
 */
const REPEATABLE: ReadonlySet<string> = new Set<OperationId>(['eraseCase', 'eraseDocument', 'acknowledgeWebhookDelivery', 'expireSession']);

/** Calls operations by their operationId, with types from the OpenAPI document. */
export class Operations {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  call<Id extends OperationId>(operationId: Id, input: CallInput<Id>): Promise<WithResponse<ResponseBody<Id>>> {
    const { method, path } = OPERATIONS[operationId];
    const request: HttpRequest = {
      method,
      path: fillPath(path, (input.path ?? {}) as Record<string, string>),
      query: input.query as HttpRequest['query'],
      body: input.body,
      idempotent: method === 'GET' || input.idempotencyKey !== undefined || REPEATABLE.has(operationId),
      ...(input.idempotencyKey !== undefined ? { idempotencyKey: input.idempotencyKey } : {}),
      ...(input.options ? { options: input.options } : {}),
    };
    return this.#transport.send<ResponseBody<Id>>(request);
  }
}

function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (typeof value !== 'string') throw new TypeError(`${template}: the path parameter ${name} is required`);
    return encodeURIComponent(value);
  });
}

/** A fresh idempotency key: a random UUID where the runtime has WebCrypto (everywhere but Node 18 without its flag). */
export function generateIdempotencyKey(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (crypto?.randomUUID) return crypto.randomUUID();
  // 128 bits from Math.random: not secret, and a key only has to be unlikely to repeat.
  return Array.from({ length: 4 }, () => Math.floor(Math.random() * 2 ** 32).toString(16).padStart(8, '0')).join('-');
}
