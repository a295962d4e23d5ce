import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Dossier, type OperationId } from '@dossier/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { API_PREFIX, GENERATED_FILES, renderClientSources } from '../../packages/client-codegen/render.ts';
import { createTestApp, type TestApp } from '../support/harness.ts';

const ROOT = join(import.meta.dirname, '../..');

let t: TestApp;
let doc: { paths: Record<string, Record<string, { operationId: string }>> };
beforeAll(async () => {
  t = await createTestApp('embedded');
  doc = t.app.swagger() as unknown as typeof doc;
});
afterAll(() => t.close());

it('the generated client sources match the OpenAPI document and catalogs (npm run client:generate)', async () => {
  const sources = await renderClientSources(t.app.swagger() as Parameters<typeof renderClientSources>[0]);
  const stale = (Object.entries(GENERATED_FILES) as [keyof typeof GENERATED_FILES, string][]).filter(([name, file]) => readFileSync(join(ROOT, file), 'utf8') !== sources[name]);
  if (stale.length === 0) return;
  // Asked again in a process of its own, as `npm run client:generate -- --check` runs: a test worker
  // that had built many apps before this file once gave a document without some input components
  // (zod's registry is process-wide), where a fresh process never does. Stale files fail both.
  const check = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'packages/client-codegen/generate.ts'), '--check'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
  expect(check.code, `${stale.map(([, file]) => file).join(', ')} stale: run npm run client:generate\n${check.output}`).toBe(0);
}, 90_000);

/**
 * One client call per public operation. `satisfies Record<OperationId, …>` makes a new operation
 * in the generated types a compile error here until the client covers it.
 */
const CALLS = {
  createSession: (d) => d.sessions.create({ case_type_id: 'income_verification' }),
  expireSession: (d) => d.sessions.expire('0b6f7c8e-1d2a-4f5b-9c3d-2e1f0a9b8c7d'),
  getCase: (d) => d.cases.retrieve('case_1'),
  listCases: (d) => d.cases.list({ queue_category: 'review' }).first(),
  decideCase: (d) => d.cases.decide('case_1', { decision: 'approve' }),
  correctFact: (d) => d.cases.facts.update('case_1', 'pay_date', { value: '2026-06-05' }),
  listCaseEvents: (d) => d.cases.events('case_1').pages()[Symbol.asyncIterator]().next(),
  getCasePackage: (d) => d.cases.package('case_1'),
  processDocument: (d) => d.process.create({ document_url: 'https://files.example/a.pdf', case_type_id: 'address_proof' }),
  eraseCase: (d) => d.cases.erase('case_1'),
  eraseDocument: (d) => d.cases.documents.erase('case_1', 'doc_1'),
  getDocument: (d) => d.cases.documents.retrieve('case_1', 'doc_1'),
  sendTestWebhook: (d) => d.webhooks.test({ endpoint_url: 'https://hooks.example/x', signing_secret: 'whsec_x' }),
  listWebhookDeliveries: (d) => d.webhooks.deliveries.list({ status: 'failed' }).first(),
  getWebhookDelivery: (d) => d.webhooks.deliveries.retrieve('dlv_1'),
  retryWebhookDelivery: (d) => d.webhooks.deliveries.retry('dlv_1'),
  acknowledgeWebhookDelivery: (d) => d.webhooks.deliveries.ack('dlv_1', { acknowledgement_id: 'crm-1' }),
  listNotifications: (d) => d.notifications.list().first(),
  createConnector: (d) => d.connectors.create({ connector_key: 'crm', name: 'CRM', base_url: 'https://crm.example', auth: { type: 'none' }, operations: [] }),
  putConnector: (d) => d.connectors.put('crm', { name: 'CRM', base_url: 'https://crm.example', auth: { type: 'none' }, operations: [] }),
  getConnector: (d) => d.connectors.retrieve('crm'),
  listConnectors: (d) => d.connectors.list(),
  deleteConnector: (d) => d.connectors.delete('crm'),
  testConnectorOperation: (d) => d.connectors.testOperation('crm', 'getContact', { inputs: { contact_id: 'ct_1' } }),
  retryCaseAction: (d) => d.cases.actions.retry('case_1', 'create_contact'),
  tryCaseTypeDocument: (d) => d.caseTypes.tryDocument('income_verification', { document_base64: Buffer.from('Employee name: Jane Doe').toString('base64'), filename: 'stub.txt' }),
  importOpenApiConnector: (d) => d.connectors.importOpenApi({ connector_key: 'crm', openapi_url: 'https://crm.example/openapi.json' }),
  // `dossier listen`'s stream and results: the CLI's own calls, through the typed escape hatch.
  listenWebhooks: (d) => d.request('listenWebhooks', { query: { forward_to: 'http://localhost:4567/hook' } }),
  recordWebhookListenResult: (d) => d.request('recordWebhookListenResult', { body: { delivery_id: 'dlv_1', attempt_token: 'listen:x', status_code: 200, duration_ms: 3 } }),
  // No resource method: this document is read by tools, through the typed escape hatch.
  getOpenApiDocument: (d) => d.request('getOpenApiDocument', {}),
} satisfies Record<OperationId, (dossier: Dossier) => Promise<unknown>>;

const SAMPLE_PARAMS: Record<string, string> = { session_id: '0b6f7c8e-1d2a-4f5b-9c3d-2e1f0a9b8c7d', case_id: 'case_1', fact_id: 'pay_date', doc_id: 'doc_1', delivery_id: 'dlv_1', connector_key: 'crm', operation_id: 'getContact', node_id: 'create_contact', case_type_id: 'income_verification' };

it('covers every public operation of the document with the method and path it documents', async () => {
  const documented = Object.entries(doc.paths).filter(([path]) => path.startsWith(API_PREFIX)).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      operationId: operation.operationId,
      request: `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, (_, name: string) => SAMPLE_PARAMS[name] ?? `<${name}>`)}`,
    })),
  );
  expect(Object.keys(CALLS).sort()).toEqual(documented.map((d) => d.operationId).sort());
  for (const { operationId, request } of documented) {
    const seen: string[] = [];
    const dossier = new Dossier({
      apiKey: 'sk_test_coverage',
      baseUrl: 'https://dossier.invalid',
      fetch: async (url, init) => {
        seen.push(`${init.method} ${new URL(url).pathname}`);
        return new Response(JSON.stringify({ data: [], events: [], deliveries: [], notifications: [], has_more: false, next_cursor: null }), { status: 200 });
      },
    });
    await CALLS[operationId as OperationId](dossier);
    expect(seen, operationId).toEqual([request]);
  }
});
