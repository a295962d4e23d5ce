/**
 * The API contract's error tables (spec §7.1 types and §7.2 codes, with their HTTP statuses), as
 * recorded here so a clone without the shared folder still checks the catalog against them.
 * `error-catalog.test.ts` compares this record with the spec itself wherever the spec is present
 * (CI), so the record cannot drift from it.
 */
export const SPEC_ERROR_TYPES: ReadonlyArray<readonly [string, number]> = [
  ['authentication_error', 401],
  ['authorization_error', 403],
  ['validation_error', 400],
  ['not_found', 404],
  ['billing_error', 402],
  ['precondition_error', 428],
  ['rate_limit_error', 429],
  ['internal_error', 500],
];

export const SPEC_ERROR_CODES: ReadonlyArray<readonly [string, number]> = [
  ['invalid_api_key', 401],
  ['forbidden', 403],
  ['billing_required', 402],
  ['live_usage_cap_exceeded', 402],
  ['precondition_required', 428],
  ['legal_acceptance_required', 428],
  ['self_serve_webhooks_disabled', 428],
  ['rate_limit_exceeded', 429],
  ['test_usage_cap_exceeded', 429],
  ['invalid_request', 400],
  ['invalid_json', 400],
  ['invalid_connector_payload', 400],
  ['missing_connector_key', 400],
  ['openapi_fetch_failed', 400],
  ['missing_openapi_spec', 400],
  ['openapi_yaml_not_supported', 400],
  ['invalid_openapi_spec', 400],
  ['invalid_openapi_connector', 400],
  ['missing_document_url', 400],
  ['invalid_document_url', 400],
  ['per_request_webhook_url_not_supported', 400],
  ['missing_case_type_id', 400],
  ['invalid_integration_identity', 400],
  ['missing_idempotency_key', 400],
  ['idempotency_key_conflict', 400],
  ['external_case_id_conflict', 400],
  ['missing_case_id', 400],
  ['invalid_after_cursor', 400],
  ['invalid_limit', 400],
  ['missing_doc_id', 400],
  ['invalid_acknowledgement_payload', 400],
  ['webhook_delivery_not_delivered', 400],
  ['missing_endpoint_url', 400],
  ['missing_signing_secret', 400],
  ['invalid_endpoint_url', 400],
  ['not_found', 404],
  ['internal_error', 500],
];
