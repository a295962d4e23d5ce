import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { putCaseType } from '../../src/domain/case-types/case-types.ts';
import { createApiKey } from '../../src/domain/keys/keys.ts';
import { createOrg } from '../../src/domain/orgs/orgs.ts';
import { createEndpoint } from '../../src/domain/webhooks/endpoints.ts';
import { openRuntime, type Runtime } from '../../src/runtime.ts';
import { incomeVerification } from '../support/fixtures.ts';
import { freshDatabase, silentLogger, until, type TestTarget } from '../support/harness.ts';
import { postgresUrlForSchema, startProcess, type RunningServer } from '../support/processes.ts';
import { parseExposition } from './exposition.ts';
import { startGatedServer, type GatedServer } from './gated-server.ts';
import { PAY_STUB } from './fixtures.ts';

const SECRET = 'many-processes-secret-0123456789abcdef';
const METRICS_TOKEN = 'many-processes-metrics-token';
/** More documents than one worker claims in a batch (10), so one worker can never hold them all. */
const DOCUMENTS = 12;
const SESSION_KEYS = 8;
const RATE_LIMIT = 10;
/** A worker holds at most 8 deliveries of one endpoint at a time: a ninth held at once proves a second worker. */
const PER_ENDPOINT_IN_FLIGHT = 8;

const postgresUrl = inject('postgresUrl');
const redisUrl = inject('redisUrl');

/**
 * The topology the README promises: two API servers without workers and two workers on one
 * PostgreSQL with Redis, under a mixed load put through both servers. Deterministic: the document
 * server answers no fetch until two are in flight at once, and the webhook receiver answers none
 * until nine are, so the load cannot complete unless both workers take part.
 */
describe.runIf(postgresUrl && redisUrl)('two servers and two workers on one PostgreSQL with Redis', () => {
  let db: TestTarget;
  let runtime: Runtime;
  let documents: GatedServer;
  let receiver: GatedServer;
  let servers: RunningServer[] = [];
  let workers: RunningServer[] = [];
  let loadKey: string;
  let limitedKey: string;
  const endpoints: { endpoint_id: string; path: string }[] = [];

  beforeAll(async () => {
    documents = await startGatedServer({ gated: () => true, holdUntil: 2, answer: () => ({ status: 200, body: PAY_STUB }) });
    receiver = await startGatedServer({ gated: (path) => path === '/hooks/a', holdUntil: PER_ENDPOINT_IN_FLIGHT + 1, answer: () => ({ status: 200, body: 'ok' }) });
    db = await freshDatabase('postgres');
    if (db.target.kind !== 'postgres') throw new Error('expected postgres');
    const env = {
      DATABASE_URL: postgresUrlForSchema(db.target.url, db.target.schema!),
      REDIS_URL: redisUrl!,
      DOSSIER_SECRET: SECRET,
      DOSSIER_ALLOW_PRIVATE_NETWORK: 'true',
      METRICS_TOKEN,
      // A held attempt must not time out while the gate waits for the second worker.
      WEBHOOK_TIMEOUT_MS: '30000',
    };
    // The workspace is set up in this process (it migrates the schema too): faster than six CLI runs.
    runtime = await openRuntime(loadConfig({ DOSSIER_SECRET: SECRET, LOG_LEVEL: 'silent', DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' }), { logger: silentLogger, target: db.target });
    const org = await createOrg(runtime.ctx, { name: 'Many processes', acceptLegal: true });
    const key = async (rateLimitPerMinute: number) => {
      const created = await createApiKey(runtime.ctx, { orgId: org.org_id, environment: 'test', scopes: ['*'], rateLimitPerMinute });
      if (!created.ok) throw new Error(created.message);
      return created.value.key;
    };
    loadKey = await key(100_000);
    limitedKey = await key(RATE_LIMIT);
    const put = await putCaseType(runtime.ctx, { orgId: org.org_id, environment: 'test', definition: incomeVerification });
    if (!put.ok) throw new Error(JSON.stringify(put.problems));
    for (const path of ['/hooks/a', '/hooks/b']) {
      const created = await createEndpoint(runtime.ctx, { tenant: { orgId: org.org_id, environment: 'test' }, url: receiver.url(path), events: ['*'] });
      if (!created.ok) throw new Error(created.message);
      endpoints.push({ endpoint_id: created.value.endpoint_id, path });
    }
    [servers, workers] = await Promise.all([
      Promise.all([startProcess(['serve', '--no-worker'], env), startProcess(['serve', '--no-worker'], env)]),
      Promise.all([startProcess(['worker'], env), startProcess(['worker'], env)]),
    ]);
    for (const p of [...servers, ...workers]) expect(p.banner, p.output().stderr).toMatchObject({ status: expect.stringMatching(/^(listening|running)$/), url: expect.stringMatching(/^http:/) });
  }, 90_000);

  afterAll(async () => {
    for (const p of [...servers, ...workers]) await p.stop();
    await runtime?.close();
    await db?.dispose();
    await documents?.close();
    await receiver?.close();
  });

  const call = (n: number, method: string, path: string, options: { key?: string; idempotencyKey?: string; body?: object } = {}) =>
    fetch(`${servers[n % 2]!.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${options.key ?? loadKey}`,
        'content-type': 'application/json',
        ...(options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}),
      },
      ...(options.body ? { body: JSON.stringify(options.body) } : {}),
    });

  const scrape = async (process: RunningServer) => {
    const res = await fetch(`${process.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    return parseExposition(await res.text());
  };
  const total = (samples: ReturnType<typeof parseExposition>, name: string, labels: Record<string, string> = {}) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);

  it('keeps every guarantee under a mixed load through both servers, with the work shared by both workers', async () => {
    const db = runtime.ctx.db;

    // Sessions: each idempotency key sent four times at once, twice to each server.
    const sessionAnswers = await Promise.all(
      Array.from({ length: SESSION_KEYS * 4 }, async (_, i) => {
        const idempotencyKey = `many-${i % SESSION_KEYS}`;
        const res = await call(i, 'POST', '/api/v1/sessions', { idempotencyKey, body: { case_type_id: 'income_verification', external_case_id: `ext-${i % SESSION_KEYS}` } });
        return { idempotencyKey, status: res.status, body: (await res.json()) as { session_id: string; idempotent_replay?: boolean } };
      }),
    );

    // /process through both servers; each document has its own path, so the server counts fetches per document.
    const processed = await Promise.all(
      Array.from({ length: DOCUMENTS }, async (_, i) => {
        const res = await call(i, 'POST', '/api/v1/process', {
          idempotencyKey: `doc-${i}`,
          body: { document_url: documents.url(`/doc-${i}.txt`), case_type_id: 'income_verification', document_kind: 'pay_stub' },
        });
        expect(res.status).toBe(202);
        return (await res.json()) as { case_id: string; document_id: string };
      }),
    );

    // One rate-limit budget across both servers, whichever answers, counted per UTC-minute window.
    const limited = await Promise.all(
      Array.from({ length: 2 * RATE_LIMIT + 5 }, async (_, i) => {
        const res = await call(i, 'GET', '/api/v1/cases/case_missing', { key: limitedKey });
        return { status: res.status, reset: res.headers.get('x-ratelimit-reset') };
      }),
    );

    // Decisions, through both servers, as the cases reach review.
    const caseIds = processed.map((p) => p.case_id);
    await until(async () => {
      const ready = await db.selectFrom('cases').select('case_id').where('case_id', 'in', caseIds).where('runtime_status', '=', 'ready_for_review').execute();
      return ready.length === DOCUMENTS;
    }, 45_000, 100).catch(async (err: Error) => {
      // What a failure here needs to be understood: who fetched what, and what the workers said.
      const jobs = await db.selectFrom('case_jobs').select(['kind', 'status', 'attempts', 'last_error']).where('case_id', 'in', caseIds).execute();
      throw new Error(`${err.message}\nfetched: ${documents.requests.map((r) => r.path).join(' ')}\njobs: ${JSON.stringify(jobs)}\nworkers: ${workers.map((w) => w.output().stderr.slice(-2000)).join('\n---\n')}`);
    });
    const decisions = await Promise.all(caseIds.map((caseId, i) => call(i, 'POST', `/api/v1/cases/${caseId}/decision`, { body: { decision: 'approve' } })));
    expect(decisions.map((d) => d.status)).toEqual(caseIds.map(() => 200));

    // Fan-out: each case's ready_for_review and completed events to both endpoints, all delivered.
    const expectedDeliveries = DOCUMENTS * 2 * endpoints.length;
    await until(async () => {
      const rows = await db.selectFrom('webhook_deliveries').select('status').where('case_id', 'in', caseIds).execute();
      return rows.length === expectedDeliveries && rows.every((r) => r.status === 'delivered');
    }, 45_000, 100);

    // Exactly one resource per idempotency key: one 201, the rest replays of it.
    for (let k = 0; k < SESSION_KEYS; k++) {
      const answers = sessionAnswers.filter((a) => a.idempotencyKey === `many-${k}`);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 201]);
      expect(new Set(answers.map((a) => a.body.session_id)).size).toBe(1);
    }
    const sessions = await db.selectFrom('cases').select('external_case_id').where('origin', '=', 'session').execute();
    expect(sessions.map((s) => s.external_case_id).sort()).toEqual(Array.from({ length: SESSION_KEYS }, (_, k) => `ext-${k}`).sort());

    // One budget: no window let more than the limit through, and a window that refused let exactly the limit through.
    const windows = new Map<string, { ok: number; refused: number }>();
    for (const { status, reset } of limited) {
      expect([404, 429]).toContain(status);
      const w = windows.get(reset!) ?? { ok: 0, refused: 0 };
      if (status === 429) w.refused++;
      else w.ok++;
      windows.set(reset!, w);
    }
    expect([...windows.values()].some((w) => w.refused > 0)).toBe(true);
    for (const w of windows.values()) {
      expect(w.ok).toBeLessThanOrEqual(RATE_LIMIT);
      if (w.refused > 0) expect(w.ok).toBe(RATE_LIMIT);
    }

    // No job ran twice: every document fetched once, processed once, each case job claimed once.
    for (let i = 0; i < DOCUMENTS; i++) expect(documents.requests.filter((r) => r.path === `/doc-${i}.txt`)).toHaveLength(1);
    const jobs = await db.selectFrom('case_jobs').select(['kind', 'status', 'attempts']).where('case_id', 'in', caseIds).execute();
    expect(jobs.filter((j) => j.kind === 'document_processing')).toHaveLength(DOCUMENTS);
    for (const job of jobs) expect(job, JSON.stringify(job)).toMatchObject({ status: 'succeeded', attempts: 1 });
    const processedEvents = await db.selectFrom('case_events').select('case_id').where('case_id', 'in', caseIds).where('event_type', '=', 'document.processed').execute();
    expect(processedEvents).toHaveLength(DOCUMENTS);

    // Every delivery sent once per attempt, never two attempts of one delivery at the same time.
    const deliveries = await db.selectFrom('webhook_deliveries').select(['delivery_id', 'total_attempts', 'endpoint_id']).where('case_id', 'in', caseIds).execute();
    let attempts = 0;
    for (const d of deliveries) {
      const received = receiver.requests.filter((r) => r.headers['webhook-id'] === d.delivery_id).sort((x, y) => x.startedAt - y.startedAt);
      expect(received.length, d.delivery_id).toBe(d.total_attempts);
      for (let n = 1; n < received.length; n++) expect(received[n]!.startedAt).toBeGreaterThanOrEqual(received[n - 1]!.answeredAt!);
      const rows = await db.selectFrom('webhook_delivery_attempts').select('attempt_number').where('delivery_id', '=', d.delivery_id).execute();
      expect(rows).toHaveLength(d.total_attempts);
      attempts += d.total_attempts;
    }
    expect(documents.opened()).toBe(true);
    expect(receiver.opened()).toBe(true);

    // All work done by both workers (their own /metrics), none by the servers started with --no-worker.
    const [workerA, workerB] = await Promise.all(workers.map(scrape));
    for (const samples of [workerA!, workerB!]) {
      expect(total(samples, 'dossier_job_run_duration_seconds_count', { kind: 'document_processing' })).toBeGreaterThan(0);
      expect(total(samples, 'dossier_webhook_delivery_attempts_total')).toBeGreaterThan(0);
    }
    expect(total(workerA!, 'dossier_job_run_duration_seconds_count', { kind: 'document_processing' }) + total(workerB!, 'dossier_job_run_duration_seconds_count', { kind: 'document_processing' })).toBe(DOCUMENTS);
    expect(total(workerA!, 'dossier_webhook_delivery_attempts_total') + total(workerB!, 'dossier_webhook_delivery_attempts_total')).toBe(attempts);
    for (const server of servers) {
      const samples = await scrape(server);
      expect(total(samples, 'dossier_job_run_duration_seconds_count')).toBe(0);
      expect(total(samples, 'dossier_webhook_delivery_attempts_total')).toBe(0);
      expect(total(samples, 'dossier_http_request_duration_seconds_count', { route: '/api/v1/sessions' })).toBe(SESSION_KEYS * 2);
    }

    for (const p of [...servers, ...workers]) expect(await p.stop()).toBe(0);
    servers = [];
    workers = [];
  }, 120_000);
});
