/**
 * The closed error catalog of spec §7.2: code → type → HTTP status.
 * Every error the API can answer comes from here; nothing else may invent a code.
 */
export const ERROR_TYPES = {
  authentication_error: 401,
  authorization_error: 403,
  validation_error: 400,
  not_found: 404,
  billing_error: 402,
  precondition_error: 428,
  rate_limit_error: 429,
  internal_error: 500,
} as const;

export type ErrorType = keyof typeof ERROR_TYPES;

export const ERROR_CATALOG = {
  invalid_api_key: 'authentication_error',
  forbidden: 'authorization_error',
  billing_required: 'billing_error',
  live_usage_cap_exceeded: 'billing_error',
  precondition_required: 'precondition_error',
  legal_acceptance_required: 'precondition_error',
  self_serve_webhooks_disabled: 'precondition_error',
  rate_limit_exceeded: 'rate_limit_error',
  test_usage_cap_exceeded: 'rate_limit_error',
  invalid_request: 'validation_error',
  invalid_json: 'validation_error',
  invalid_connector_payload: 'validation_error',
  missing_connector_key: 'validation_error',
  openapi_fetch_failed: 'validation_error',
  missing_openapi_spec: 'validation_error',
  openapi_yaml_not_supported: 'validation_error',
  invalid_openapi_spec: 'validation_error',
  invalid_openapi_connector: 'validation_error',
  missing_document_url: 'validation_error',
  invalid_document_url: 'validation_error',
  per_request_webhook_url_not_supported: 'validation_error',
  missing_case_type_id: 'validation_error',
  invalid_integration_identity: 'validation_error',
  missing_idempotency_key: 'validation_error',
  idempotency_key_conflict: 'validation_error',
  external_case_id_conflict: 'validation_error',
  missing_case_id: 'validation_error',
  invalid_after_cursor: 'validation_error',
  invalid_limit: 'validation_error',
  missing_doc_id: 'validation_error',
  invalid_acknowledgement_payload: 'validation_error',
  webhook_delivery_not_delivered: 'validation_error',
  missing_endpoint_url: 'validation_error',
  missing_signing_secret: 'validation_error',
  invalid_endpoint_url: 'validation_error',
  not_found: 'not_found',
  internal_error: 'internal_error',
} as const satisfies Record<string, ErrorType>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

export function errorType(code: ErrorCode): ErrorType {
  return ERROR_CATALOG[code];
}

export function errorStatus(code: ErrorCode): number {
  return ERROR_TYPES[ERROR_CATALOG[code]];
}

/** An expected failure as a value: what domain functions return instead of throwing. */
export interface Failure {
  readonly ok: false;
  readonly code: ErrorCode;
  readonly message: string;
  /** Extra response headers the failure implies (Retry-After, rate-limit headers). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The one request field at fault, when one is (the envelope's `param`, as Stripe's errors carry it). */
  readonly param?: string;
}

export type Result<T> = { readonly ok: true; readonly value: T } | Failure;

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function fail(code: ErrorCode, message: string, headers?: Record<string, string>): Failure {
  return headers ? { ok: false, code, message, headers } : { ok: false, code, message };
}

/** A failure caused by one named request field. */
export function failOn(param: string, code: ErrorCode, message: string): Failure {
  return { ok: false, code, message, param };
}

/**
 * The one error class. Thrown only where unwinding is the clearest control flow
 * (the HTTP layer turning a Failure into a response, or a unit of work rolling back);
 * the error handler renders it with the catalog envelope.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly headers: Readonly<Record<string, string>>;
  readonly param: string | undefined;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}, param?: string) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.headers = headers;
    this.param = param;
  }

  static from(failure: Failure): AppError {
    return new AppError(failure.code, failure.message, { ...failure.headers }, failure.param);
  }

  get status(): number {
    return errorStatus(this.code);
  }
}

/** Unwraps a Result, throwing its failure as an AppError for the error handler to render. */
export function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  throw AppError.from(result);
}
