import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock.ts';
import { createTestApp, describeEachBackend, until, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { uniqueKey, withExampleCaseTypes } from '../support/fixtures.ts';
import { drainCaseJobs } from '../engine/engine-fixtures.ts';
import { startDocumentServer } from '../documents/document-server.ts';
import { addEndpoint, startDeliveries, startReceiver, type Receiver } from '../webhooks/fixtures.ts';
import { parseExposition, type Sample } from './exposition.ts';
import { PAY_STUB } from './fixtures.ts';

const TOKEN = 'metrics-token-0123456789abcdef';

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found?.value;
}

describeEachBackend('GET /metrics', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let docs: Awaited<ReturnType<typeof startDocumentServer>>;
  let receiver: Receiver;
  const clock = new ManualClock('2026-06-15T12:00:00.000Z');

  beforeAll(async () => {
    docs = await startDocumentServer({ '/paystub.txt': { body: PAY_STUB, type: 'text/plain' } });
    receiver = await startReceiver();
    t = await createTestApp(backend, { clock, env: { METRICS_TOKEN: TOKEN, DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' } });
    ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await docs.close();
    await receiver.close();
  });

  const scrape = async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode, res.body).toBe(200);
    return { text: res.body, samples: parseExposition(res.body), type: String(res.headers['content-type']) };
  };
  const api = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${ws.key}`, 'idempotency-key': uniqueKey() }, ...(payload ? { payload } : {}) });

  it('refuses a request without the token, or with another, with WWW-Authenticate', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`, TOKEN, `Bearer ${ws.key}`]) {
      const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(res.json().error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
      expect(res.body).not.toContain('dossier_');
    }
  });

  it('counts waiting jobs and ages the oldest runnable one by the clock', async () => {
    const res = await api('POST', '/api/v1/process', { document_url: docs.url('/paystub.txt'), case_type_id: 'income_verification', document_kind: 'pay_stub' });
    expect(res.statusCode, res.body).toBe(202);
    clock.advance(90_000);
    // Readings are shared between scrapes for two seconds: wait for one taken after the enqueue.
    const { samples } = await until(async () => {
      const s = await scrape();
      return value(s.samples, 'dossier_jobs', { kind: 'document_processing', state: 'queued' }) === 1 ? s : undefined;
    });
    expect(value(samples, 'dossier_jobs_oldest_runnable_age_seconds', { kind: 'document_processing' })).toBe(90);
    expect(value(samples, 'dossier_jobs_oldest_runnable_age_seconds', { kind: 'gate_evaluation' })).toBe(0);
    expect(value(samples, 'dossier_jobs', { kind: 'webhook_delivery', state: 'pending' })).toBe(0);
    await drainCaseJobs(t);
  });

  it('serves every series of the issue in Prometheus text, with no id in any label', async () => {
    const endpoint = await addEndpoint(t.ctx, ws.orgId, receiver.url, ['v1.case.completed']);
    const created = await api('POST', '/api/v1/process', { document_url: docs.url('/paystub.txt'), case_type_id: 'income_verification', document_kind: 'pay_stub' });
    const { case_id: caseId, document_id: docId } = created.json();
    await drainCaseJobs(t);
    const read = await api('GET', `/api/v1/cases/${caseId}`);
    expect(read.statusCode).toBe(200);
    expect((await api('GET', `/api/v1/cases/case_${'Z'.repeat(24)}`)).statusCode).toBe(404);
    expect((await api('GET', `/api/v1/no-such-route/${caseId}`)).statusCode).toBe(404);
    const decided = await api('POST', `/api/v1/cases/${caseId}/decision`, { decision: 'approve' });
    expect(decided.statusCode, decided.body).toBe(200);
    const deliveries = startDeliveries(t.ctx, backend);
    try {
      await until(() => receiver.requests.length >= 1);
    } finally {
      await deliveries.stop();
    }
    const deliveryId = String(receiver.requests[0]!.headers['webhook-id']);

    const { text, samples, type } = await until(async () => {
      const s = await scrape();
      return value(s.samples, 'dossier_jobs', { kind: 'document_processing', state: 'queued' }) === 0 ? s : undefined;
    });
    expect(type).toContain('text/plain');
    expect(value(samples, 'dossier_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/cases/:case_id', status_class: '2xx' })).toBeGreaterThanOrEqual(1);
    expect(value(samples, 'dossier_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/cases/:case_id', status_class: '4xx' })).toBe(1);
    expect(value(samples, 'dossier_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status_class: '4xx' })).toBe(1);
    expect(value(samples, 'dossier_http_request_duration_seconds_bucket', { route: '/api/v1/process', status_class: '2xx', le: '+Inf' })).toBe(2);
    expect(value(samples, 'dossier_webhook_delivery_attempts_total', { outcome: 'delivered' })).toBe(1);
    expect(value(samples, 'dossier_webhook_deliveries_failed_total')).toBe(0);
    expect(value(samples, 'dossier_extraction_duration_seconds_count', { format: 'text', outcome: 'processed' })).toBe(2);
    expect(value(samples, 'dossier_job_run_duration_seconds_count', { kind: 'document_processing', outcome: 'succeeded' })).toBe(2);
    expect(value(samples, 'dossier_job_run_duration_seconds_count', { kind: 'gate_evaluation', outcome: 'succeeded' })).toBeGreaterThanOrEqual(2);
    expect(value(samples, 'dossier_jobs', { kind: 'gate_evaluation', state: 'failed' })).toBe(0);
    expect(value(samples, 'dossier_jobs', { kind: 'webhook_delivery', state: 'failed' })).toBe(0);
    expect(value(samples, 'dossier_db_pool_in_use_connections')).toBeGreaterThanOrEqual(0);
    // The scrape's own queue reading may hold or wait for a connection while the pool is read.
    expect(value(samples, 'dossier_db_pool_waiting_requests')).toBeGreaterThanOrEqual(0);
    expect(value(samples, 'dossier_db_pool_max_connections')).toBe(backend === 'embedded' ? 1 : 5);
    expect(value(samples, 'dossier_rate_limit_store_degraded')).toBe(0);
    expect(value(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(value(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);

    // Bounded labels: no identifier of anything this test touched, and nothing shaped like one.
    for (const id of [caseId, docId, deliveryId, endpoint.endpoint_id, ws.orgId, ws.keyId, String(read.headers['x-request-id'])]) {
      expect(id.length).toBeGreaterThan(10);
      expect(text).not.toContain(id);
    }
    const idShaped = /\b(case|doc|evt|dlv|key|ep|org|req|op)_[A-Za-z0-9]{8,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
    for (const sample of samples) {
      for (const labelValue of Object.values(sample.labels)) expect(labelValue, `${sample.name} ${JSON.stringify(sample.labels)}`).not.toMatch(idShaped);
      if (sample.labels.route !== undefined) expect(sample.labels.route === 'unmatched' || sample.labels.route.startsWith('/')).toBe(true);
    }
  });
});

describe('GET /metrics without METRICS_TOKEN', () => {
  it('does not exist', async () => {
    const t = await createTestApp('embedded');
    try {
      const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer anything-at-all-here' } });
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toContain('dossier_');
    } finally {
      await t.close();
    }
  });
});
