import type { TestApp, TestWorkspace } from '../support/harness.ts';

/** Tests reach loopback servers: http:// and 127.0.0.1 are allowed only with this. */
export const PRIVATE_NETWORK_ENV = { DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' } as const;

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** An API call with the workspace's key; `payload` sends raw text instead of JSON. */
export function caller(t: TestApp, ws: () => TestWorkspace) {
  return (method: Method, url: string, options: { key?: string; body?: unknown; payload?: string } = {}) =>
    t.app.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${options.key ?? ws().key}`,
        ...(options.body !== undefined || options.payload !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(options.payload !== undefined ? { payload: options.payload } : options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
    });
}

/** A small, valid manifest: a loan-origination system with one create and one read operation. */
export function loanManifest(baseUrl = 'https://los.example.com/api/v2', overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    connector_key: 'loan_origination',
    name: 'Loan origination system',
    base_url: baseUrl,
    auth: { type: 'bearer', secret: 'los-token-7f3a9c2e5b1d' },
    operations: [
      {
        operation_id: 'createApplication',
        method: 'post',
        path: '/applications',
        summary: 'Create a loan application',
        parameters: [{ name: 'X-Branch', in: 'header', required: false, schema: { type: 'string' } }],
        request_body_schema: {
          type: 'object',
          required: ['applicant_name'],
          properties: { applicant_name: { type: 'string' }, monthly_income: { type: 'string' }, reference: { type: 'string' } },
        },
        response_schema: { type: 'object', properties: { id: { type: 'string' } } },
      },
      {
        operation_id: 'getApplication',
        method: 'get',
        path: '/applications/{application_id}',
        parameters: [{ name: 'application_id', in: 'path', required: true, schema: { type: 'string' } }],
      },
    ],
    ...overrides,
  };
}
