/**
 * API benchmark (not a test): PostgreSQL, `dossier serve --no-worker` in its own process, the load
 * generator (autocannon, 32 connections) in this one. Each path runs beside its reference in the
 * same round, alternating reference, ours, reference, ours, so that a noisy neighbour on the shared
 * machine hits both:
 *   - POST /api/v1/sessions, new keys   vs pgbench TPC-B (10 clients, prepared)   goal ratio ≥ 0.30
 *   - GET /api/v1/cases/{id}            vs a bare Fastify route serving the same JSON from memory
 *                                                                                   goal ratio ≥ 0.50, p99 ≤ 20 ms
 *   - POST /api/v1/sessions, replays    vs the same bare route                     goal ratio ≥ 0.50
 *   - the server's RSS: idle after start-up (goal ≤ 150 MB) and its peak under the read load (≤ 400 MB).
 * The load generator and the servers are pinned to separate cores where the machine allows
 * (support.ts, cpuPinning). Each figure is the median of BENCH_ROUNDS rounds (default 3) with its
 * spread (min–max); a ratio is the median of the rounds' own ratios. Beside each ratio, the
 * server's CPU per request in the same runs (from /proc: steadier than the rate on a shared
 * machine). BENCH_SECONDS sets the length of each run (default 8); BENCH_PATHS=read,replay runs
 * only those paths (with their references); BENCH_NODE_OPTIONS replaces the servers' Node flags;
 * BENCH_REDIS_URL gives the server Redis (rate limits and the case revision mirror, issue 29).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pgbenchTarget } from './pgbench.ts';
import { benchSchema, benchServerEnv, cpuPinning, formatSpread, load, POSTGRES_URL, spread, type LoadResult } from './support.ts';
import { runCli, startProcess } from '../test/support/processes.ts';

const EXAMPLE = fileURLToPath(new URL('../examples/case-types/income_verification.json', import.meta.url));
const duration = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** BENCH_PATHS=read,replay measures only those paths (default: creation, read, replay). */
const PATHS = new Set((process.env.BENCH_PATHS ?? 'creation,read,replay').split(',').map((p) => p.trim()));

/** The machine's 1-minute load average (other agents share the cores). */
function loadAverage(): string {
  return loadavg()[0]!.toFixed(1);
}

function rssMegabytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** Samples the RSS of `pid` every 100 ms while `work` runs; returns the work's result and the peak. */
async function withPeakRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peakMb: number }> {
  let peakMb = rssMegabytes(pid);
  const timer = setInterval(() => (peakMb = Math.max(peakMb, rssMegabytes(pid))), 100);
  try {
    return { result: await work(), peakMb };
  } finally {
    clearInterval(timer);
  }
}

/** The server's statement counter (dossier_db_statements_total) from /metrics. */
async function statementsSent(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${env.METRICS_TOKEN}` } })).text();
  const match = /^dossier_db_statements_total (\d+)/m.exec(text);
  if (!match) throw new Error('no dossier_db_statements_total in /metrics');
  return Number(match[1]);
}

/** Runs `work` and reports the statements the server sent per request completed meanwhile. */
async function withStatements(url: string, work: () => Promise<LoadResult>): Promise<{ result: LoadResult; perRequest: number }> {
  const before = await statementsSent(url);
  const result = await work();
  const after = await statementsSent(url);
  return { result, perRequest: (after - before) / Math.max(1, result.total) };
}

const db = await benchSchema();
const pgbench = await pgbenchTarget(POSTGRES_URL);
const env = {
  ...benchServerEnv(db.url),
  METRICS_TOKEN: 'bench-metrics-token-0123456789',
  // As `npm start` and bin/dossier.js run it, unless BENCH_NODE_OPTIONS says otherwise.
  NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS ?? '--max-semi-space-size=8',
};
// BENCH_EMBEDDED=1: the embedded database (one process, the case revision mirror in process), in a scratch DATA_DIR.
if (process.env.BENCH_EMBEDDED === '1') {
  delete (env as Record<string, string>).DATABASE_URL;
  (env as Record<string, string>).DATA_DIR = mkdtempSync(join(tmpdir(), 'dossier-bench-'));
}
const pinning = cpuPinning();
// A first start, measured and stopped: it fills Node's compile cache if this version has not run on
// this machine (bin/dossier.js; docs/operations.md), as a deployment's first start does. The
// measured server is the second start, as every later start of a deployment is.
const firstStart = await startProcess(['serve', '--no-worker'], env);
await new Promise((r) => setTimeout(r, 1_000));
const firstStartRss = rssMegabytes(firstStart.pid);
await firstStart.stop();
const server = await startProcess(['serve', '--no-worker'], env);
pinning.pinServer(server.pid);
let bareInput: (body: string) => void = () => undefined;
const bare = await new Promise<{ url: string; pid: number; stop(): void }>((resolve, reject) => {
  // The same Node and flags as the server (NODE_OPTIONS), on the same core.
  const child = spawn(process.execPath, [fileURLToPath(new URL('./bare-server.ts', import.meta.url))], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, NODE_OPTIONS: env.NODE_OPTIONS },
  });
  pinning.pinServer(child.pid!);
  child.stdout.once('data', (c: Buffer) => resolve({ url: JSON.parse(String(c)).url as string, pid: child.pid!, stop: () => child.kill('SIGTERM') }));
  child.once('error', reject);
  // The bare route's body is set once the real record exists (below), through stdin.
  bareInput = (body) => child.stdin.end(body);
});

try {
  // Idle RSS: after start-up and migrations, before any request, the way an operator sees it.
  await new Promise((r) => setTimeout(r, 1_000));
  const idleRss = rssMegabytes(server.pid);

  const org = (await runCli(['org', 'create', '--name', 'Bench', '--json'], env)).json();
  const key = String((await runCli(['key', 'create', '--org', String(org.org_id), '--env', 'test', '--scopes', '*', '--json'], env)).json().key);
  await runCli(['case-type', 'put', '--org', String(org.org_id), '--file', EXAMPLE, '--json'], env);
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const created = await fetch(`${server.url}/api/v1/sessions`, {
    method: 'POST',
    headers: { ...auth, 'idempotency-key': 'bench-seed' },
    body: JSON.stringify({ case_type_id: 'income_verification' }),
  });
  const caseId = ((await created.json()) as { case_id: string }).case_id;
  const record = await (await fetch(`${server.url}/api/v1/cases/${caseId}`, { headers: auth })).text();
  bareInput(record);
  await new Promise((r) => setTimeout(r, 200));
  console.log(`${pinning.description}; load average ${loadAverage()}`);
  const redis = process.env.BENCH_REDIS_URL;
  if (process.env.BENCH_EMBEDDED === '1') console.log(`server: the embedded database in ${(env as Record<string, string>).DATA_DIR}, no Redis; NODE_OPTIONS ${env.NODE_OPTIONS}`);
  else console.log(`server: PostgreSQL${redis ? ` and Redis (${redis}: rate limits, case revision mirror)` : ', no Redis'}; NODE_OPTIONS ${env.NODE_OPTIONS}`);
  console.log(`case record: ${record.length} bytes; ${ROUNDS} rounds of reference, ours; ${duration} s per run, 32 connections; idle RSS ${idleRss.toFixed(0)} MB\n`);

  let n = 0;
  const freshSessions = () =>
    load(
      {
        url: `${server.url}/api/v1/sessions`,
        method: 'POST',
        headers: auth,
        duration,
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              headers: { ...(req.headers ?? {}), 'idempotency-key': `bench-${process.pid}-${++n}` },
              body: JSON.stringify({ case_type_id: 'income_verification' }),
            }),
          },
        ],
      },
      server.pid,
    );
  const replays = () =>
    load(
      {
        url: `${server.url}/api/v1/sessions`,
        method: 'POST',
        headers: { ...auth, 'idempotency-key': 'bench-seed' },
        body: JSON.stringify({ case_type_id: 'income_verification' }),
        duration,
      },
      server.pid,
    );
  const reads = () => load({ url: `${server.url}/api/v1/cases/${caseId}`, headers: auth, duration }, server.pid);
  const bareReads = () => load({ url: `${bare.url}/api/v1/cases/${caseId}`, duration }, bare.pid);

  // Warm both sides (JIT, pools, the key cache) before anything counts.
  await load({ url: `${bare.url}/api/v1/cases/${caseId}`, duration: 2 });
  await load({ url: `${server.url}/api/v1/cases/${caseId}`, headers: auth, duration: 2 });

  const tpcb: number[] = [];
  const fresh: LoadResult[] = [];
  const bareBeforeRead: LoadResult[] = [];
  const read: LoadResult[] = [];
  const bareBeforeReplay: LoadResult[] = [];
  const replay: LoadResult[] = [];
  const loads: string[] = [];
  let peakRss = 0;
  const statements = { fresh: 0, read: 0, replay: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    loads.push(loadAverage());
    if (PATHS.has('creation')) {
      tpcb.push(await pgbench.tps(duration));
      const created = await withStatements(server.url, freshSessions);
      fresh.push(created.result);
      statements.fresh = created.perRequest;
    }
    if (PATHS.has('read')) {
      bareBeforeRead.push(await bareReads());
      const measured = await withPeakRss(server.pid, () => withStatements(server.url, reads));
      read.push(measured.result.result);
      statements.read = measured.result.perRequest;
      peakRss = Math.max(peakRss, measured.peakMb);
    }
    if (PATHS.has('replay')) {
      bareBeforeReplay.push(await bareReads());
      const replayed = await withStatements(server.url, replays);
      replay.push(replayed.result);
      statements.replay = replayed.perRequest;
    }
  }

  const rate = (runs: LoadResult[]) => spread(runs.map((r) => r.requestsPerSecond));
  const cpu = (runs: LoadResult[]) => spread(runs.map((r) => r.cpuPerRequestUs ?? Number.NaN));
  const p99 = (runs: LoadResult[]) => spread(runs.map((r) => r.p99));
  const ratios = (ours: number[], reference: number[]) => spread(ours.map((v, i) => v / reference[i]!));
  const errors = (runs: LoadResult[]) => runs.reduce((s, r) => s + r.non2xx + r.errors, 0);
  const loadGenerator = (runs: LoadResult[]) => spread(runs.map((r) => r.loadGeneratorCpuPerRequestUs));
  const line = (name: string, runs: LoadResult[]) =>
    runs.length === 0
      ? `${name.padEnd(40)} not run`
      : `${name.padEnd(40)} ${formatSpread(rate(runs)).padStart(26)} req/s   CPU ${formatSpread(cpu(runs)).padStart(18)} µs/req (load generator ${formatSpread(loadGenerator(runs))})   p99 ${formatSpread(p99(runs)).padStart(16)} ms   non-2xx/errors ${errors(runs)}`;
  console.log(`median (min–max) of ${ROUNDS} rounds; each round runs the rows in this order`);
  if (tpcb.length > 0) console.log(`${'pgbench TPC-B, 10 clients, prepared'.padEnd(40)} ${formatSpread(spread(tpcb)).padStart(26)} tps`);
  console.log(line('POST /api/v1/sessions (new keys)', fresh));
  console.log(line('bare Fastify route (before the read)', bareBeforeRead));
  console.log(line('GET /api/v1/cases/{id}', read));
  console.log(line('bare Fastify route (before the replay)', bareBeforeReplay));
  console.log(line('POST /api/v1/sessions (replays)', replay));
  const cpuRatio = (ours: LoadResult[], reference: LoadResult[]) =>
    formatSpread(ratios(ours.map((r) => r.cpuPerRequestUs ?? Number.NaN), reference.map((r) => r.cpuPerRequestUs ?? Number.NaN)), 1);
  console.log('\nratios, median (min–max) of the rounds\' own ratios, with the server\'s CPU per request beside each:');
  if (fresh.length > 0) console.log(
    `  sessions, new keys / pgbench TPC-B   ${formatSpread(ratios(fresh.map((r) => r.requestsPerSecond), tpcb), 2)}   goal ≥ 0.30   CPU ${formatSpread(cpu(fresh))} µs per creation`,
  );
  if (read.length > 0) console.log(
    `  case read / bare Fastify             ${formatSpread(ratios(read.map((r) => r.requestsPerSecond), bareBeforeRead.map((r) => r.requestsPerSecond)), 2)}   goal ≥ 0.50   CPU ${formatSpread(cpu(read))} µs against the bare route's ${formatSpread(cpu(bareBeforeRead))} (${cpuRatio(read, bareBeforeRead)}×); p99 ${formatSpread(p99(read))} ms, goal ≤ 20 ms`,
  );
  if (replay.length > 0) console.log(
    `  replays / bare Fastify               ${formatSpread(ratios(replay.map((r) => r.requestsPerSecond), bareBeforeReplay.map((r) => r.requestsPerSecond)), 2)}   goal ≥ 0.50   CPU ${formatSpread(cpu(replay))} µs against the bare route's ${formatSpread(cpu(bareBeforeReplay))} (${cpuRatio(replay, bareBeforeReplay)}×)`,
  );
  console.log(
    `  statements per request (round trips, BEGIN/COMMIT included): session creation ${statements.fresh.toFixed(1)}, case read ${statements.read.toFixed(2)}, replay ${statements.replay.toFixed(2)}`,
  );
  console.log(`  RSS idle ${idleRss.toFixed(0)} MB (goal ≤ 150; first start ${firstStartRss.toFixed(0)} MB), peak under the read load ${peakRss.toFixed(0)} MB (goal ≤ 400)`);
  console.log(`  load average at the start of each round: ${loads.join('; ')}; at the end ${loadAverage()}`);
} finally {
  bare.stop();
  await server.stop();
  await db.drop();
  await pgbench.drop();
}
