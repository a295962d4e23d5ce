import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createApiKey } from '../../src/domain/keys/keys.ts';
import { createOrg } from '../../src/domain/orgs/orgs.ts';
import { buildServer } from '../../src/http/server.ts';
import { systemClock } from '../../src/ports/clock.ts';
import { openRuntime, type Runtime } from '../../src/runtime.ts';
import { freshDatabase, silentLogger, until, type TestTarget } from '../support/harness.ts';
import { postgresUrlForSchema, runCli, runCliInProcess } from '../support/processes.ts';
import { caseEvent, caseHandoff, deliveryRow, enqueue, insertCase, startDeliveries, startReceiver, verifySignatures, type Receiver, type RunningDeliveries } from './fixtures.ts';

/**
 * `dossier listen` end to end (issue 25): a server on a loopback port, the CLI as its own process
 * (as a developer runs it), and a receiver on this machine. PostgreSQL only: the server is
 * restarted on the same database, and the CLI without --api-key opens that database itself to
 * make its key, which an in-memory PGlite cannot offer to another process.
 */

const CLI = fileURLToPath(new URL('../../bin/dossier.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SECRET = 'test-secret-test-secret-test-secret-0123';
const SERVER_ENV = { DOSSIER_SECRET: SECRET, VALIDATE_RESPONSES: 'true', LOG_LEVEL: 'silent', WEBHOOK_RETRY_DELAYS: '2,30,30,30', AUTH_FAILURES_PER_MINUTE: '1000000' };

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Served {
  runtime: Runtime;
  app: FastifyInstance;
  deliveries: RunningDeliveries;
  url: string;
  /** Closes the HTTP face only (the database stays open). */
  closeHttp(): Promise<void>;
  close(): Promise<void>;
}

/** The API (and a delivery worker) on a fixed loopback port, on the test's database: restartable. */
async function serve(db: TestTarget, port: number): Promise<Served> {
  const config = loadConfig({ ...SERVER_ENV, PORT: String(port) });
  const runtime = await openRuntime(config, { logger: silentLogger, clock: systemClock, target: db.target });
  const app = await buildServer(runtime.ctx);
  await app.listen({ port, host: '127.0.0.1' });
  const deliveries = startDeliveries(runtime.ctx, 'postgres', { pollMs: 100 });
  let httpClosed = false;
  const closeHttp = async () => {
    if (httpClosed) return;
    httpClosed = true;
    await app.close();
  };
  return {
    runtime,
    app,
    deliveries,
    url: `http://127.0.0.1:${port}`,
    closeHttp,
    async close() {
      await closeHttp();
      await deliveries.stop();
      await runtime.close();
    },
  };
}

interface ListenProcess {
  child: ChildProcess;
  /** Parsed `--json` lines so far. */
  lines(): Record<string, unknown>[];
  stdout(): string;
  stderr(): string;
  stop(): Promise<number | null>;
}

function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, BASE_URL: _b, PORT: _p, DATA_DIR: _dd, MODE: _m, ...rest } = process.env;
  return { ...rest, LOG_LEVEL: 'warn', ...extra };
}

/** `dossier listen … [--json]` as its own process; resolves once it has printed its first line. */
async function startListen(args: string[], options: { json?: boolean; env?: Record<string, string> } = {}): Promise<ListenProcess> {
  const json = options.json ?? true;
  const child = spawn(process.execPath, [CLI, 'listen', ...args, ...(json ? ['--json'] : [])], { cwd: ROOT, env: cliEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const process_: ListenProcess = {
    child,
    lines: () =>
      stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    stdout: () => stdout,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
  await until(() => stdout.includes('\n') || child.exitCode !== null, 60_000);
  if (child.exitCode !== null) throw new Error(`listen exited with ${child.exitCode}\n${stdout}\n${stderr}`);
  return process_;
}

const deliveryLine = (p: ListenProcess, deliveryId: string) => p.lines().filter((l) => l.type === 'delivery' && l.delivery_id === deliveryId);

const attempts = (served: Served, deliveryId: string) =>
  served.runtime.ctx.db.selectFrom('webhook_delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('attempt_number').execute();

const postgres = inject('postgresUrl');

describe.skipIf(!postgres)('dossier listen, end to end [postgres]', () => {
  let db: TestTarget;
  let port: number;
  let served: Served;
  const running: ListenProcess[] = [];
  const receivers: Receiver[] = [];

  async function workspace(name = 'Acme') {
    const ctx = served.runtime.ctx;
    const org = await createOrg(ctx, { name, acceptLegal: true });
    const all = await createApiKey(ctx, { orgId: org.org_id, environment: 'test', scopes: ['*'] });
    const listenKey = await createApiKey(ctx, { orgId: org.org_id, environment: 'test', scopes: ['webhooks:listen'] });
    if (!all.ok || !listenKey.ok) throw new Error('keys');
    return { orgId: org.org_id, key: all.value.key, listenKey: listenKey.value.key };
  }

  async function listenFor(key: string, forwardTo: string, extra: string[] = []) {
    const p = await startListen(['--forward-to', forwardTo, '--api-key', key, '--base-url', served.url, ...extra]);
    running.push(p);
    return p;
  }

  async function receiver(respond?: Parameters<typeof startReceiver>[0]) {
    const r = await startReceiver(respond);
    receivers.push(r);
    return r;
  }

  beforeAll(async () => {
    db = await freshDatabase('postgres');
    port = await freePort();
    served = await serve(db, port);
  });
  afterAll(async () => {
    await Promise.all(running.map((p) => p.stop()));
    await Promise.all(receivers.map((r) => r.close()));
    await served?.close();
    await db?.dispose();
  });

  it('forwards a delivery that stripe-node and standardwebhooks verify; the local receiver acknowledges the handoff through the API', async () => {
    const ws = await workspace();
    const acks: number[] = [];
    // The receiver answers at once and acknowledges afterwards, as the README tells receivers to.
    const local = await receiver((request) => {
      const envelope = JSON.parse(request.rawBody) as { delivery_id: string; event_type: string };
      if (envelope.event_type === 'v1.case.completed') {
        void (async () => {
          for (let i = 0; i < 100; i++) {
            const res = await fetch(`${served.url}/api/v1/webhooks/deliveries/${envelope.delivery_id}/ack`, { method: 'POST', headers: { authorization: `Bearer ${ws.key}` } });
            acks.push(res.status);
            if (res.status === 200) return;
            await new Promise((r) => setTimeout(r, 50));
          }
        })();
      }
      return { status: 200, body: 'thanks' };
    });
    const cli = await listenFor(ws.listenKey, local.url);
    const ready = cli.lines()[0]!;
    expect(ready).toMatchObject({ type: 'ready', workspace: 'Acme', environment: 'test', forward_to: local.url, events: ['*'] });
    expect(String(ready.signing_secret)).toMatch(/^whsec_/);

    const caseId = await insertCase(served.runtime.ctx, ws.orgId);
    const [deliveryId] = await enqueue(served.runtime.ctx, caseEvent(ws.orgId, caseId));
    const request = await until(() => local.requests[0], 20_000);
    verifySignatures(request, String(ready.signing_secret));
    expect(request.headers['webhook-id']).toBe(deliveryId);
    expect(request.headers['user-agent']).toBe('Dossier-Webhooks/1.0');
    expect(JSON.parse(request.rawBody)).toMatchObject({ delivery_id: deliveryId, case_id: caseId, event_type: 'v1.case.completed' });

    await until(async () => (await caseHandoff(served.runtime.ctx, caseId)).handoff_state === 'acknowledged', 20_000);
    // The state is committed before the receiver's fetch has its answer: wait for the answer too.
    await until(() => acks.at(-1) === 200, 5_000);
    const row = await deliveryRow(served.runtime.ctx, deliveryId!);
    expect(row).toMatchObject({ status: 'delivered', attempt_count: 1, last_status_code: 200 });
    expect(await attempts(served, deliveryId!)).toMatchObject([{ attempt_number: 1, status_code: 200, error: null, response_excerpt: 'thanks' }]);
    const line = await until(() => deliveryLine(cli, deliveryId!)[0]);
    expect(line).toMatchObject({ event_type: 'v1.case.completed', status_code: 200, error: null, recorded: true, delivery_status: 'delivered' });
    expect(typeof line.duration_ms).toBe('number');

    // The listener is an endpoint of the workspace, of its own kind: the delivery log shows it.
    const log = await fetch(`${served.url}/api/v1/webhooks/deliveries?case_id=${caseId}`, { headers: { authorization: `Bearer ${ws.key}` } });
    expect(((await log.json()) as { deliveries: unknown[] }).deliveries).toMatchObject([{ delivery_id: deliveryId, endpoint_url: local.url, status: 'delivered' }]);
  }, 90_000);

  it('shows a closed local port and a local 500 on the line, as failed attempts retried on the schedule', async () => {
    const ws = await workspace('Closed port');
    const closedPort = await freePort();
    const cli = await listenFor(ws.listenKey, `http://127.0.0.1:${closedPort}/hook`);
    const caseId = await insertCase(served.runtime.ctx, ws.orgId);
    const [refused] = await enqueue(served.runtime.ctx, caseEvent(ws.orgId, caseId));
    // Retried (the first retry after 2 s here): two attempts, both shown.
    await until(() => deliveryLine(cli, refused!).length >= 2, 30_000);
    expect(deliveryLine(cli, refused!)[0]).toMatchObject({ status_code: null, error: 'connection refused', recorded: true, delivery_status: 'retry_scheduled' });
    const tried = await attempts(served, refused!);
    expect(tried.length).toBeGreaterThanOrEqual(2);
    expect(tried[0]).toMatchObject({ attempt_number: 1, status_code: null, error: 'connection refused' });
    await cli.stop();

    const ws500 = await workspace('Five hundred');
    const broken = await receiver(() => ({ status: 500, body: 'boom' }));
    const human = await startListen(['--forward-to', broken.url, '--api-key', ws500.listenKey, '--base-url', served.url], { json: false });
    running.push(human);
    const [failing] = await enqueue(served.runtime.ctx, caseEvent(ws500.orgId, await insertCase(served.runtime.ctx, ws500.orgId)));
    await until(() => human.stdout().includes(`${failing}  [500] the local receiver answered 500`), 20_000);
    await until(async () => (await attempts(served, failing!)).length >= 2, 20_000);
    const row = await deliveryRow(served.runtime.ctx, failing!);
    expect(row.last_status_code).toBe(500);
    expect((await attempts(served, failing!))[0]).toMatchObject({ status_code: 500, error: 'the local receiver answered 500', response_excerpt: 'boom' });
    expect(broken.requests.length).toBeGreaterThanOrEqual(2);
  }, 90_000);

  it('loses nothing across a CLI restart and a server restart, and keeps the signing secret', async () => {
    const ws = await workspace('Restarts');
    const local = await receiver();
    const first = await listenFor(ws.listenKey, local.url);
    const secret = String(first.lines()[0]!.signing_secret);
    const ctx = () => served.runtime.ctx;
    const caseId = await insertCase(ctx(), ws.orgId);
    const [d1] = await enqueue(ctx(), caseEvent(ws.orgId, caseId, { eventType: 'v1.intake.submitted' }));
    await until(() => local.requests.some((r) => r.headers['webhook-id'] === d1), 20_000);

    // The CLI stops: what is enqueued meanwhile waits (the worker fails its attempts, retried on the schedule).
    expect(await first.stop()).toBe(0);
    const [d2] = await enqueue(ctx(), caseEvent(ws.orgId, caseId, { eventType: 'v1.case.ready_for_review' }));
    await until(async () => (await attempts(served, d2!)).length >= 1, 20_000);
    expect((await attempts(served, d2!))[0]).toMatchObject({ status_code: null, error: 'no `dossier listen` connected' });

    const second = await listenFor(ws.listenKey, local.url);
    expect(second.lines()[0]!.signing_secret).toBe(secret);
    await until(() => local.requests.some((r) => r.headers['webhook-id'] === d2), 20_000);
    verifySignatures(local.requests.find((r) => r.headers['webhook-id'] === d2)!, secret);

    // The server restarts; a delivery is enqueued while it is down; the CLI reconnects and gets it.
    await served.closeHttp();
    const [d3] = await enqueue(ctx(), caseEvent(ws.orgId, caseId, { eventType: 'v1.intake.submitted' }));
    await served.deliveries.stop();
    await served.runtime.close();
    await until(() => second.lines().some((l) => l.type === 'disconnected'), 20_000).catch((e: Error) => {
      throw new Error(`${e.message}\n${second.stdout()}\n${second.stderr()}`);
    });
    served = await serve(db, port);
    await until(() => local.requests.some((r) => r.headers['webhook-id'] === d3), 40_000);
    expect(second.lines().some((l) => l.type === 'reconnected' && l.signing_secret === secret)).toBe(true);
    // A redelivery after a restart may wait for the schedule's next slot; say where each stands if one never lands.
    for (const id of [d1, d2, d3]) {
      await until(async () => (await deliveryRow(ctx(), id!)).status === 'delivered', 60_000).catch(async (e: Error) => {
        const rows = await Promise.all([d1, d2, d3].map(async (d) => ({ d, ...(await deliveryRow(ctx(), d!)) })));
        throw new Error(`${e.message}: ${JSON.stringify(rows.map((r) => ({ id: r.d, status: r.status, attempts: r.attempt_count, next: r.next_attempt_at })))}`);
      });
    }
  }, 180_000);

  it('makes its own test key through the local deployment when given no --api-key', async () => {
    const ws = await workspace('Local mode');
    const local = await receiver();
    const p = await startListen(['--forward-to', local.url, '--base-url', served.url, '--org', ws.orgId], {
      env: { DATABASE_URL: postgresUrlForSchema((db.target as { url: string }).url, (db.target as { schema: string }).schema), DOSSIER_SECRET: SECRET },
    });
    running.push(p);
    expect(p.lines()[0]).toMatchObject({ type: 'ready', workspace: 'Local mode' });
    const [d] = await enqueue(served.runtime.ctx, caseEvent(ws.orgId, await insertCase(served.runtime.ctx, ws.orgId)));
    await until(() => local.requests.some((r) => r.headers['webhook-id'] === d), 20_000);
    const keys = await served.runtime.ctx.db.selectFrom('api_keys').select(['scopes', 'environment', 'expires_at', 'name']).where('org_id', '=', ws.orgId).where('name', '=', 'dossier listen').execute();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ scopes: ['webhooks:listen'], environment: 'test' });
    expect(keys[0]!.expires_at).not.toBeNull();
  }, 90_000);

  it('refuses a live key, at the CLI and at the server', async () => {
    const cli = await runCli(['listen', '--forward-to', 'http://localhost:4567/hook', '--api-key', 'sk_live_abc', '--base-url', served.url], {});
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('dossier listen works with test keys only');

    const ctx = served.runtime.ctx;
    const org = await createOrg(ctx, { name: 'Live', acceptLegal: true, billing: 'active' });
    const live = await createApiKey(ctx, { orgId: org.org_id, environment: 'live', scopes: ['*'] });
    if (!live.ok) throw new Error('key');
    const res = await fetch(`${served.url}/api/v1/webhooks/listen?forward_to=${encodeURIComponent('http://localhost:4567/hook')}`, { headers: { authorization: `Bearer ${live.value.key}` } });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: 'forbidden', message: expect.stringContaining('works with test keys only') } });
    const listeners = await ctx.db.selectFrom('webhook_endpoints').select('endpoint_id').where('org_id', '=', org.org_id).execute();
    expect(listeners).toEqual([]);
  }, 60_000);

  it.each([['ftp://localhost/hook'], ['localhost:4567/hook'], ['not a url']])('refuses --forward-to %s before connecting', async (forwardTo) => {
    // The base URL is a closed port: a refusal after connecting would read differently. In this
    // process: the refusal comes before anything is connected (the live key above is refused by a `dossier` process).
    const cli = await runCliInProcess(['listen', '--forward-to', forwardTo, '--api-key', 'sk_test_abc', '--base-url', `http://127.0.0.1:${await freePort()}`], {});
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('--forward-to must be an http or https URL');
  }, 60_000);
});
