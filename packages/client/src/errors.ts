import { ERROR_STATUS_BY_TYPE, ERROR_TYPE_BY_CODE } from './generated/catalog.ts';
import type { RateLimit } from './response.ts';

/** An error family of spec §7.1 (`validation_error`, `rate_limit_error`, …). */
export type ErrorType = keyof typeof ERROR_STATUS_BY_TYPE;

/** A catalog code of spec §7.2, generated from the service's own catalog. */
export type ErrorCode = keyof typeof ERROR_TYPE_BY_CODE;

/** The codes of one error type: `ErrorCodeOf<'billing_error'>` is `'billing_required' | 'live_usage_cap_exceeded'`. */
export type ErrorCodeOf<T extends ErrorType> = CodesByType[T];

type CodesByType = { [T in ErrorType]: { [C in ErrorCode]: (typeof ERROR_TYPE_BY_CODE)[C] extends T ? C : never }[ErrorCode] };

export interface DossierErrorInit {
  status: number;
  type: ErrorType;
  code: ErrorCode;
  message: string;
  requestId: string | null;
  headers: Headers;
  rateLimit: RateLimit | null;
  /** Retries made before giving up with this error. */
  retries: number;
  /** The request field at fault, when the envelope names one. */
  param?: string | null;
}

/**
 * An error answered by the API, in the one envelope of spec §7. Catch a subclass
 * (`ValidationError`, `RateLimitError`, …) or switch on `code`, which is typed with the catalog.
 */
export class DossierError<T extends ErrorType = ErrorType> extends Error {
  /** The HTTP status. */
  readonly status: number;
  readonly type: T;
  readonly code: ErrorCodeOf<T>;
  /** The `request_id` of the envelope (also the `X-Request-Id` header): quote it to support. */
  readonly requestId: string | null;
  /** The response headers, for anything not surfaced here. */
  readonly headers: Headers;
  /** The rate-limit headers of the response, when it had them. */
  readonly rateLimit: RateLimit | null;
  readonly retries: number;
  /** The request field at fault (`error.param`), when one field is; else null. */
  readonly param: string | null;

  constructor(init: DossierErrorInit) {
    super(init.message);
    this.name = new.target.name;
    this.status = init.status;
    this.type = init.type as T;
    this.code = init.code as ErrorCodeOf<T>;
    this.requestId = init.requestId;
    this.headers = init.headers;
    this.rateLimit = init.rateLimit;
    this.retries = init.retries;
    this.param = init.param ?? null;
  }
}

/** 401 `invalid_api_key`: the key is missing, malformed, unknown, revoked, expired or for the wrong environment. */
export class AuthenticationError extends DossierError<'authentication_error'> {}
/** 403 `forbidden`: the key lacks the operation's scope. */
export class AuthorizationError extends DossierError<'authorization_error'> {}
/** 400: the request is wrong; the code says how. Never retried: change the request. */
export class ValidationError extends DossierError<'validation_error'> {}
/** 404: no such resource in the key's workspace and environment. */
export class NotFoundError extends DossierError<'not_found'> {}
/** 402: live billing or the live usage cap. */
export class BillingError extends DossierError<'billing_error'> {}
/** 428: a legal or setup precondition of the workspace is missing. */
export class PreconditionError extends DossierError<'precondition_error'> {}
/** 429: the per-minute key limit (retried after the reset) or the monthly test-session cap. */
export class RateLimitError extends DossierError<'rate_limit_error'> {
  /** How long the response asked to wait (Retry-After, else until X-RateLimit-Reset); null when it did not say. */
  readonly retryAfterMs: number | null;

  constructor(init: DossierErrorInit & { retryAfterMs: number | null }) {
    super(init);
    this.retryAfterMs = init.retryAfterMs;
  }
}
/** 500: the service failed; `requestId` identifies the failure in its logs. */
export class InternalError extends DossierError<'internal_error'> {}

const ERROR_CLASSES: { [T in ErrorType]: new (init: DossierErrorInit & { retryAfterMs: number | null }) => DossierError<T> } = {
  authentication_error: AuthenticationError,
  authorization_error: AuthorizationError,
  validation_error: ValidationError,
  not_found: NotFoundError,
  billing_error: BillingError,
  precondition_error: PreconditionError,
  rate_limit_error: RateLimitError,
  internal_error: InternalError,
};

/**
 * What a response that is not the API's envelope (a proxy's 502 page, a body cut short) stands
 * for: the family its status belongs to, with that family's generic code.
 */
const FALLBACK_CODES: { [T in ErrorType]: ErrorCodeOf<T> } = {
  authentication_error: 'invalid_api_key',
  authorization_error: 'forbidden',
  validation_error: 'invalid_request',
  not_found: 'not_found',
  billing_error: 'billing_required',
  precondition_error: 'precondition_required',
  rate_limit_error: 'rate_limit_exceeded',
  internal_error: 'internal_error',
};

function typeForStatus(status: number): ErrorType {
  const match = (Object.entries(ERROR_STATUS_BY_TYPE) as [ErrorType, number][]).find(([, s]) => s === status);
  if (match) return match[0];
  return status >= 500 ? 'internal_error' : 'validation_error';
}

function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_TYPE_BY_CODE, code);
}

export interface ErrorResponse {
  status: number;
  headers: Headers;
  /** The parsed body, or undefined when it was not JSON. */
  body: unknown;
  rateLimit: RateLimit | null;
  retryAfterMs: number | null;
  retries: number;
}

/** The error class instance for an error response, envelope or not. */
export function errorFromResponse(response: ErrorResponse): DossierError {
  const envelope = (response.body as { error?: { type?: unknown; code?: unknown; message?: unknown; request_id?: unknown; param?: unknown } } | undefined)?.error;
  const requestId = typeof envelope?.request_id === 'string' ? envelope.request_id : response.headers.get('x-request-id');
  let type: ErrorType;
  let code: ErrorCode;
  let message: string;
  if (envelope && isErrorCode(envelope.code)) {
    code = envelope.code;
    type = ERROR_TYPE_BY_CODE[code];
    message = typeof envelope.message === 'string' ? envelope.message : `HTTP ${response.status}`;
  } else {
    // A code this client does not know (a newer server) keeps the family of its status.
    type = typeForStatus(response.status);
    code = FALLBACK_CODES[type];
    message =
      typeof envelope?.message === 'string'
        ? envelope.message
        : `HTTP ${response.status} without the API's error envelope${typeof envelope?.code === 'string' ? ` (code ${envelope.code})` : ''}`;
  }
  const Class = ERROR_CLASSES[type];
  const param = typeof envelope?.param === 'string' ? envelope.param : null;
  return new Class({ status: response.status, type, code, message, requestId, headers: response.headers, rateLimit: response.rateLimit, retries: response.retries, retryAfterMs: response.retryAfterMs, param });
}

/** No HTTP answer at all: the connection failed or was dropped, after every allowed retry. */
export class DossierConnectionError extends Error {
  readonly retries: number;

  constructor(message: string, options: { cause?: unknown; retries: number }) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.retries = options.retries;
  }
}

/** No answer within `timeoutMs`, after every allowed retry. */
export class DossierTimeoutError extends DossierConnectionError {}
