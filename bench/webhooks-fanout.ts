/**
 * Webhook fan-out benchmark (not a test): `node bench/webhooks-fanout.ts`. PostgreSQL at
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), a fresh schema dropped after.
 * The receiver runs in its own process; the raw loop and the delivery worker run in this one.
 *
 * Runs A B A B in one run, so a noisy neighbour on the shared machine hits both sides:
 *   A. raw: DELIVERIES plain undici POSTs to the receiver, CONCURRENCY in flight, one keep-alive
 *      agent (the reference);
 *   B. Dossier: DELIVERIES queued deliveries (events × ENDPOINTS, queued before the clock starts)
 *      sent by one delivery worker with the same concurrency: claim, sign, send through the
 *      SSRF-safe client, record each outcome under its lease.
 * Each Dossier run also counts the statements it sent (the pool's counter, which
 * `dossier_db_statements_total` exposes), split into claims, outcomes and the rest by what each
 * transaction did. Then the idle latency: single events queued one at a time into an idle worker,
 * queue (before the transaction) to receipt. The ratio is printed last.
 *
 * Goals: ratio ≥ 0.50 of the raw loop, idle p50 ≤ 25 ms. BENCH_ROUNDS (default 2), BENCH_DELIVERIES
 * (default 10 000).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pino } from 'pino';
import { Agent } from 'undici';
import { loadConfig } from '../src/config.ts';
import { createOrg } from '../src/domain/orgs/orgs.ts';
import { createEndpoint } from '../src/domain/webhooks/endpoints.ts';
import { enqueueWebhookEvent, type WebhookEventInput } from '../src/domain/webhooks/outbox.ts';
import { webhookDeliveryTask } from '../src/jobs/webhook-delivery.ts';
import { Worker } from '../src/jobs/worker.ts';
import { randomBase62 } from '../src/ports/ids.ts';
import { openRuntime } from '../src/runtime.ts';
import { quoteIdent } from '../src/storage/database.ts';
import { inTransaction } from '../src/storage/unit-of-work.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/**
 * BENCH_WORKERS=N: the deliveries are sent by `dossier worker --concurrency N` (N processes, each
 * with the same 32 in flight) instead of one worker in this process; their CPU is read from /proc.
 * They are started once and stopped (SIGSTOP) while each run's deliveries are queued; each run is
 * timed from the first receipt after they are continued.
 */
const WORKERS = Number(process.env.BENCH_WORKERS ?? 0);
/** BENCH_CLAIM_LANES: the worker's claim sessions (default: the task's own, 2). */
const CLAIM_LANES = process.env.BENCH_CLAIM_LANES ? Number(process.env.BENCH_CLAIM_LANES) : undefined;
/** BENCH_PER_ENDPOINT: the in-process worker's per-endpoint limit (default: the task's own, 8). */
const PER_ENDPOINT = process.env.BENCH_PER_ENDPOINT ? Number(process.env.BENCH_PER_ENDPOINT) : undefined;
const ENDPOINTS = 10;
const CONCURRENCY = 32;
const LATENCY_SAMPLES = 100;
const EVENTS_PER_TRANSACTION = 100;

const log = (line: string) => console.log(line);
const fmt = (n: number) => Math.round(n).toLocaleString('en');

// ── statements, by what their transaction did ──────────────────────────────────────────────────
// The pool's own counter (poolStats().statements) gives the total; to split it, every pg client's
// statements are buffered per transaction and classed at COMMIT by what the transaction ran.
type StatementClass = 'claim' | 'outcome' | 'enqueue' | 'other';
const statementsByClass: Record<StatementClass, number> = { claim: 0, outcome: 0, enqueue: 0, other: 0 };
function classOf(texts: readonly string[]): StatementClass {
  const all = texts.join('\n');
  if (all.includes('picked as (')) return 'claim';
  if (all.includes('webhook_delivery_attempts')) return 'outcome';
  if (all.includes('insert into "webhook_deliveries"')) return 'enqueue';
  return 'other';
}
/** Claim statements' round trips (ms) and rows: claims run one at a time, so they bound the rate. */
const claimTimes: number[] = [];
const claimRows: number[] = [];
const openTransactions = new WeakMap<object, string[]>();
/** The bench's own connections (setup, polling): not counted. */
const uncounted = new WeakSet<object>();
const clientQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: object, ...args: unknown[]) {
  if (uncounted.has(this)) return clientQuery.apply(this, args);
  const first = args[0];
  const text = typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '');
  const keyword = text.trimStart().slice(0, 8).toLowerCase();
  let open = openTransactions.get(this);
  if (keyword.startsWith('begin')) openTransactions.set(this, (open = []));
  if (open) {
    open.push(text);
    if (keyword.startsWith('commit') || keyword.startsWith('rollback')) {
      statementsByClass[classOf(open)] += open.length;
      openTransactions.delete(this);
    }
  } else {
    statementsByClass[classOf([text])]++;
  }
  if (text.includes('picked as (') && typeof args.at(-1) !== 'function') {
    const started = performance.now();
    const result = clientQuery.apply(this, args) as Promise<{ rowCount: number | null }>;
    void result.then((r) => {
      claimTimes.push(performance.now() - started);
      claimRows.push(r.rowCount ?? 0);
    }, () => {});
    return result;
  }
  return clientQuery.apply(this, args);
} as typeof pg.Client.prototype.query;

// ── the receiver ───────────────────────────────────────────────────────────────────────────────
type ReceiverMessage = { type: 'ready'; port: number } | { type: 'count'; count: number; connections: number } | { type: 'receipt'; id: string; at: number };
const receiver = fork(fileURLToPath(new URL('./webhooks-receiver.ts', import.meta.url)), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
// A receipt can arrive before the enqueuing call has returned to the bench (the worker in this
// process may send between the commit and the caller resuming): keep those until asked for.
const receipts = new Map<string, (at: number) => void>();
const earlyReceipts = new Map<string, number>();
let countWaiter: ((msg: { count: number; connections: number }) => void) | undefined;
const port = await new Promise<number>((resolve) => {
  receiver.on('message', (msg: ReceiverMessage) => {
    if (msg.type === 'ready') resolve(msg.port);
    if (msg.type === 'count') countWaiter?.(msg);
    if (msg.type === 'receipt') {
      const waiter = receipts.get(msg.id);
      if (waiter) waiter(msg.at);
      else earlyReceipts.set(msg.id, msg.at);
    }
  });
});
const receiverCount = () =>
  new Promise<{ count: number; connections: number }>((resolve) => {
    countWaiter = resolve;
    receiver.send({ type: 'count' });
  });
function receiptOf(deliveryId: string): Promise<number> {
  const early = earlyReceipts.get(deliveryId);
  if (early !== undefined) {
    earlyReceipts.delete(deliveryId);
    return Promise.resolve(early);
  }
  return new Promise<number>((resolve) =>
    receipts.set(deliveryId, (at) => {
      receipts.delete(deliveryId);
      resolve(at);
    }),
  );
}
/** Waits until the receiver has counted `n` requests, printing progress every second. */
async function waitForCount(n: number, label: string): Promise<void> {
  let lastPrint = performance.now();
  for (;;) {
    const { count } = await receiverCount();
    if (count >= n) return;
    if (performance.now() - lastPrint >= 1_000) {
      log(`  ${label}: ${fmt(count)} / ${fmt(n)} received`);
      lastPrint = performance.now();
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

// ── the database ───────────────────────────────────────────────────────────────────────────────
const schema = `bench_${randomBase62(10).toLowerCase()}`;
const admin = new pg.Client({ connectionString: DATABASE_URL });
uncounted.add(admin);
await admin.connect();
await admin.query(`create schema ${quoteIdent(schema)}`);
const table = (name: string) => `${quoteIdent(schema)}.${quoteIdent(name)}`;
log(`webhook fan-out: receiver on port ${port}, schema ${schema}; ${ROUNDS} rounds of A B, ${fmt(DELIVERIES)} deliveries each, ${ENDPOINTS} endpoints, ${CONCURRENCY} in flight`);

const config = loadConfig({ DATABASE_URL, DOSSIER_ALLOW_PRIVATE_NETWORK: 'true', DOSSIER_SECRET: 'bench-secret-bench-secret-bench-secret-01', LOG_LEVEL: 'warn' });
const runtime = await openRuntime(config, { logger: pino({ level: 'warn' }), target: { kind: 'postgres', url: DATABASE_URL, schema, poolSize: 10 } });
const { ctx } = runtime;
const statements = () => runtime.database.poolStats().statements;
log('migrated');

function event(orgId: string, caseId: string): WebhookEventInput {
  return {
    orgId, environment: 'test', eventType: 'v1.intake.submitted', eventId: ctx.ids.next('evt'), caseId, sessionId: null,
    externalCaseId: 'loan-4711', externalApplicantId: null, externalCustomerId: null, idempotencyKey: null,
    traceId: ctx.ids.next('req'), occurredAt: new Date(), data: { runtime_status: 'processing' },
  };
}

interface RawRun {
  rate: number;
  /** This process's CPU time (user + system) per request, in µs: less noisy than rates on a shared machine. */
  cpuUs: number;
  /** TCP connections the receiver accepted during the run (keep-alive: few). */
  connections: number;
}
interface FanRun {
  rate: number;
  cpuUs: number;
  connections: number;
  recordedSeconds: number;
  statements: Record<StatementClass | 'total', number>;
  /** Attempts in flight, sampled every millisecond while sending. */
  meanInFlight: number;
  /** Claim statements in the run: how many, their round trip (p50, ms) and rows (p50). */
  claims: { count: number; p50Ms: number; p50Rows: number };
}

/** A: the raw undici loop. */
async function rawRun(count: number, body: string): Promise<RawRun> {
  receiver.send({ type: 'reset' });
  const agent = new Agent();
  let next = 0;
  await profiler?.post('Profiler.start');
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        const res = await agent.request({
          origin: `http://127.0.0.1:${port}`, path: `/raw/e${i % ENDPOINTS}`, method: 'POST',
          headers: { 'content-type': 'application/json' }, body,
        });
        await res.body.dump();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  if (profiler) writeFileSync(profileFile!.replace(/(\.cpuprofile)?$/, '-raw.cpuprofile'), JSON.stringify((await profiler.post('Profiler.stop')).profile));
  await agent.close();
  return { rate: count / seconds, cpuUs: (used.user + used.system) / count, connections: (await receiverCount()).connections };
}

/**
 * BENCH_PROFILE=file.cpuprofile: a CPU profile of this process while the Dossier runs send (not
 * while they queue), the last run's kept, and of the last raw run beside it (file-raw.cpuprofile);
 * open them in Chrome DevTools or speedscope.
 */
const profileFile = process.env.BENCH_PROFILE;
const profiler = profileFile ? new Session() : undefined;
if (profiler) {
  profiler.connect();
  await profiler.post('Profiler.enable');
}

/** CPU time (user + system, every thread) a process has used, in µs, from /proc (Linux clock ticks of 10 ms). */
function processCpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * `dossier worker --concurrency WORKERS` on the bench's schema, started once (so their JIT is warm
 * after the warm-up run) and kept: between runs they are stopped (SIGSTOP) while the deliveries
 * are queued, and continued (SIGCONT) to send them.
 */
let workerProcesses: { supervisor: ChildProcess; pids: number[]; exited: Promise<void> } | undefined;
async function workerProcessesStarted(): Promise<{ supervisor: ChildProcess; pids: number[]; exited: Promise<void> }> {
  if (workerProcesses) return workerProcesses;
  const url = new URL(DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const supervisor = spawn(process.execPath, [fileURLToPath(new URL('../src/cli/main.ts', import.meta.url)), 'worker', '--concurrency', String(WORKERS), '--json'], {
    env: { ...process.env, DATABASE_URL: url.toString(), DOSSIER_SECRET: config.secret!, DOSSIER_ALLOW_PRIVATE_NETWORK: 'true', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => supervisor.once('exit', () => resolve()));
  const pids = await new Promise<number[]>((resolve) => {
    let out = '';
    supervisor.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (!out.includes('\n')) return;
      const started = JSON.parse(out.split('\n')[0]!) as { pid: number; workers?: number[] };
      resolve(started.workers ?? [started.pid]);
    });
  });
  workerProcesses = { supervisor, pids, exited };
  return workerProcesses;
}

/** B: `count` deliveries queued (untimed), then one worker started and timed until all are received and recorded. */
async function fanRun(orgId: string, caseId: string, count: number, label: string): Promise<FanRun> {
  await admin.query(`truncate ${table('webhook_delivery_attempts')}, ${table('webhook_deliveries')}`);
  receiver.send({ type: 'reset' });
  const workers = WORKERS > 0 ? await workerProcessesStarted() : undefined;
  for (const pid of workers?.pids ?? []) process.kill(pid, 'SIGSTOP');
  const queueStart = performance.now();
  for (let i = 0; i < count / ENDPOINTS; i += EVENTS_PER_TRANSACTION) {
    await inTransaction(ctx.db, async (tx) => {
      for (let j = 0; j < EVENTS_PER_TRANSACTION; j++) await enqueueWebhookEvent(tx, ctx, event(orgId, caseId));
    });
  }
  log(`  ${label}: queued ${fmt(count)} deliveries in ${((performance.now() - queueStart) / 1000).toFixed(1)} s; sending`);

  if (workers) return workerRun(count, label, workers.pids);
  const before = { ...statementsByClass, total: statements() };
  claimTimes.length = 0;
  claimRows.length = 0;
  const task = webhookDeliveryTask({ maxInFlight: CONCURRENCY, listenUrl: DATABASE_URL, ...(CLAIM_LANES ? { claimLanes: CLAIM_LANES } : {}), ...(PER_ENDPOINT ? { perEndpointInFlight: PER_ENDPOINT } : {}) });
  const worker = new Worker(ctx, [task]);
  await profiler?.post('Profiler.start');
  const cpu = process.cpuUsage();
  const started = performance.now();
  worker.start();
  // Attempts in flight, sampled every millisecond: below CONCURRENCY, the worker waits for claims.
  const inFlightSamples: number[] = [];
  const readySamples: number[] = [];
  const claimSamples: number[] = [];
  const unwrittenSamples: number[] = [];
  const sampler = setInterval(() => {
    inFlightSamples.push(task.inFlight);
    const ahead = task.leasedAhead;
    readySamples.push(ahead.ready);
    claimSamples.push(ahead.claims);
    unwrittenSamples.push(ahead.unwritten);
  }, 1);
  await waitForCount(count, label);
  clearInterval(sampler);
  if (process.env.BENCH_DEBUG) log(`  ready ${mean(readySamples).toFixed(1)}, claims running ${mean(claimSamples).toFixed(2)}, unwritten ${mean(unwrittenSamples).toFixed(1)}`);
  const seconds = (performance.now() - started) / 1000;
  // Recorded: polled on the bench's own connection, outside the pool, so it is not counted.
  for (;;) {
    const left = await admin.query<{ n: string }>(`select count(*) as n from ${table('webhook_deliveries')} where status <> 'delivered'`);
    if (Number(left.rows[0]!.n) === 0) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const recordedSeconds = (performance.now() - started) / 1000;
  const after = { ...statementsByClass, total: statements() };
  const used = process.cpuUsage(cpu);
  if (profiler) writeFileSync(profileFile!, JSON.stringify((await profiler.post('Profiler.stop')).profile));
  await Promise.all([task.stop(), worker.stop()]);
  const per = (k: StatementClass | 'total') => (after[k] - before[k]) / count;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const claims = { count: claimTimes.length, p50Ms: median(claimTimes), p50Rows: median(claimRows) };
  return { rate: count / seconds, cpuUs: (used.user + used.system) / count, connections: (await receiverCount()).connections, recordedSeconds, claims, meanInFlight: mean(inFlightSamples), statements: { total: per('total'), claim: per('claim'), outcome: per('outcome'), enqueue: per('enqueue'), other: per('other') } };
}

/**
 * B with BENCH_WORKERS: the worker processes, stopped while the deliveries were queued, are
 * continued; the clock (and their CPU count) starts at the first receipt.
 */
async function workerRun(count: number, label: string, pids: readonly number[]): Promise<FanRun> {
  for (const pid of pids) process.kill(pid, 'SIGCONT');
  while ((await receiverCount()).count === 0) await new Promise((r) => setTimeout(r, 1));
  const startedAt = performance.now();
  const cpuBefore = pids.reduce((n, pid) => n + processCpuUs(pid), 0);
  await waitForCount(count, label);
  const seconds = (performance.now() - startedAt) / 1000;
  for (;;) {
    const left = await admin.query<{ n: string }>(`select count(*) as n from ${table('webhook_deliveries')} where status <> 'delivered'`);
    if (Number(left.rows[0]!.n) === 0) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const recordedSeconds = (performance.now() - startedAt) / 1000;
  const cpuUs = (pids.reduce((n, pid) => n + processCpuUs(pid), 0) - cpuBefore) / count;
  const none = { total: Number.NaN, claim: Number.NaN, outcome: Number.NaN, enqueue: Number.NaN, other: Number.NaN };
  return { rate: count / seconds, cpuUs, connections: (await receiverCount()).connections, recordedSeconds, meanInFlight: Number.NaN, claims: { count: 0, p50Ms: 0, p50Rows: 0 }, statements: none };
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

try {
  const org = await createOrg(ctx, { name: 'bench' });
  for (let i = 0; i < ENDPOINTS; i++) {
    const created = await createEndpoint(ctx, { tenant: { orgId: org.org_id, environment: 'test' }, url: `http://127.0.0.1:${port}/e${i}`, events: ['*'] });
    if (!created.ok) throw new Error(created.message);
  }
  // Deliveries name their case but need no case row: the case id is carried, not joined.
  const caseId = ctx.ids.next('case');
  const sample = JSON.stringify({ ...event('org_x', 'case_x'), delivery_id: 'dlv_x' });

  log('warm-up: 1,000 raw POSTs, 1,000 deliveries');
  await rawRun(1_000, sample);
  await fanRun(org.org_id, caseId, 1_000, 'warm-up');

  const raws: RawRun[] = [];
  const fans: FanRun[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const raw = await rawRun(DELIVERIES, sample);
    raws.push(raw);
    log(`round ${round} A raw undici:  ${fmt(raw.rate).padStart(6)} POSTs/s, ${fmt(raw.cpuUs)} µs CPU each, ${raw.connections} connections`);
    const fan = await fanRun(org.org_id, caseId, DELIVERIES, `round ${round} B`);
    fans.push(fan);
    const s = fan.statements;
    log(
      `round ${round} B Dossier:     ${fmt(fan.rate).padStart(6)} deliveries/s, ${fmt(fan.cpuUs)} µs CPU each, ${fan.connections} connections, all recorded at ${fan.recordedSeconds.toFixed(2)} s; ` +
        `statements per delivery ${s.total.toFixed(2)} (claims ${s.claim.toFixed(2)}, outcomes ${s.outcome.toFixed(2)}, other ${(s.other + s.enqueue).toFixed(2)}); ` +
        `${fan.claims.count} claims, p50 ${fan.claims.p50Ms.toFixed(1)} ms for ${fan.claims.p50Rows} rows; ${fan.meanInFlight.toFixed(1)} in flight on average`,
    );
  }

  log(`idle latency: ${LATENCY_SAMPLES} single events into an idle worker`);
  const solo = await createOrg(ctx, { name: 'bench-latency' });
  const soloEndpoint = await createEndpoint(ctx, { tenant: { orgId: solo.org_id, environment: 'test' }, url: `http://127.0.0.1:${port}/solo`, events: ['*'] });
  if (!soloEndpoint.ok) throw new Error(soloEndpoint.message);
  receiver.send({ type: 'latency' });
  const task = webhookDeliveryTask({ maxInFlight: CONCURRENCY, listenUrl: DATABASE_URL, ...(CLAIM_LANES ? { claimLanes: CLAIM_LANES } : {}), ...(PER_ENDPOINT ? { perEndpointInFlight: PER_ENDPOINT } : {}) });
  const worker = new Worker(ctx, [task]);
  worker.start();
  await new Promise((r) => setTimeout(r, 200));
  const latencies: number[] = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    await new Promise((r) => setTimeout(r, 20)); // let the worker go idle between events
    const started = Date.now();
    const { deliveryIds } = await inTransaction(ctx.db, (tx) => enqueueWebhookEvent(tx, ctx, event(solo.org_id, caseId)));
    latencies.push((await receiptOf(deliveryIds[0]!)) - started);
  }
  await Promise.all([task.stop(), worker.stop()]);
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;

  const rawRate = mean(raws.map((r) => r.rate));
  const fanRate = mean(fans.map((f) => f.rate));
  const per = (k: StatementClass | 'total') => mean(fans.map((f) => f.statements[k]));
  log('');
  log(`raw undici POST loop        ${fmt(rawRate).padStart(6)} /s   ${fmt(mean(raws.map((r) => r.cpuUs))).padStart(4)} µs CPU each in this process   (runs: ${raws.map((r) => fmt(r.rate)).join(', ')})`);
  log(`webhook fan-out (Dossier)   ${fmt(fanRate).padStart(6)} /s   ${fmt(mean(fans.map((f) => f.cpuUs))).padStart(4)} µs CPU each in this process   (runs: ${fans.map((f) => fmt(f.rate)).join(', ')})`);
  log(`statements per delivery     ${per('total').toFixed(2)}: claims ${per('claim').toFixed(2)}, outcomes ${per('outcome').toFixed(2)}, other ${(per('other') + per('enqueue')).toFixed(2)}`);
  log(`idle event to receipt       p50 ${pct(50)} ms, p95 ${pct(95)} ms, max ${latencies.at(-1)} ms   goal p50 ≤ 25 ms`);
  log('\nratio (same run):');
  log(`  webhook fan-out / raw undici   ${(fanRate / rawRate).toFixed(2)}   goal ≥ 0.50   (load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);
} finally {
  if (workerProcesses) {
    for (const pid of workerProcesses.pids) process.kill(pid, 'SIGCONT');
    workerProcesses.supervisor.kill('SIGTERM');
    await workerProcesses.exited;
  }
  await runtime.close();
  await admin.query(`drop schema if exists ${quoteIdent(schema)} cascade`);
  await admin.end();
  receiver.send({ type: 'stop' });
}
