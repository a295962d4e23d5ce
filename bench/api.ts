/**
 * API benchmark (not a test): PostgreSQL, `dossier serve --no-worker` in its own process, the load
 * generator (autocannon, 32 connections) in this one. Each path runs beside its reference in the
 * same run, alternating A B A B, so that a noisy neighbour on the shared machine hits both:
 *   - POST /api/v1/sessions, new keys   vs pgbench TPC-B (10 clients, prepared)   goal ratio ≥ 0.30
 *   - GET /api/v1/cases/{id}            vs a bare Fastify route serving the same JSON from memory
 *                                                                                   goal ratio ≥ 0.50, p99 ≤ 20 ms
 *   - POST /api/v1/sessions, replays    vs the same bare route                     goal ratio ≥ 0.50
 *   - the server's RSS: idle after start-up (goal ≤ 150 MB) and its peak under the read load (≤ 400 MB).
 * Ratios are printed last. BENCH_SECONDS sets the length of each run (default 8).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pgbenchTarget } from './pgbench.ts';
import { benchSchema, benchServerEnv, load, POSTGRES_URL, row, type LoadResult } from './support.ts';
import { runCli, startProcess } from '../test/support/processes.ts';

const EXAMPLE = fileURLToPath(new URL('../examples/case-types/income_verification.json', import.meta.url));
const duration = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = 2;

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

function mean(results: LoadResult[]): LoadResult {
  const avg = (pick: (r: LoadResult) => number) => results.reduce((s, r) => s + pick(r), 0) / results.length;
  return {
    requestsPerSecond: avg((r) => r.requestsPerSecond),
    total: results.reduce((s, r) => s + r.total, 0),
    p50: avg((r) => r.p50),
    p99: Math.max(...results.map((r) => r.p99)),
    non2xx: results.reduce((s, r) => s + r.non2xx, 0),
    errors: results.reduce((s, r) => s + r.errors, 0),
  };
}

const db = await benchSchema();
const pgbench = await pgbenchTarget(POSTGRES_URL);
const env = {
  ...benchServerEnv(db.url),
  METRICS_TOKEN: 'bench-metrics-token-0123456789',
  // As `npm start` and bin/dossier.js run it.
  NODE_OPTIONS: '--max-semi-space-size=8',
};
const server = await startProcess(['serve', '--no-worker'], env);
let bareInput: (body: string) => void = () => undefined;
const bare = await new Promise<{ url: string; stop(): void }>((resolve, reject) => {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./bare-server.ts', import.meta.url))], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdout.once('data', (c: Buffer) => resolve({ url: JSON.parse(String(c)).url as string, stop: () => child.kill('SIGTERM') }));
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
  console.log(`case record: ${record.length} bytes; ${ROUNDS} rounds of A B, ${duration} s per run, 32 connections; idle RSS ${idleRss.toFixed(0)} MB\n`);

  let n = 0;
  const freshSessions = () =>
    load({
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
    });
  const replays = () =>
    load({
      url: `${server.url}/api/v1/sessions`,
      method: 'POST',
      headers: { ...auth, 'idempotency-key': 'bench-seed' },
      body: JSON.stringify({ case_type_id: 'income_verification' }),
      duration,
    });
  const reads = () => load({ url: `${server.url}/api/v1/cases/${caseId}`, headers: auth, duration });
  const bareReads = () => load({ url: `${bare.url}/api/v1/cases/${caseId}`, duration });

  // Warm both sides (JIT, pools, the key cache) before anything counts.
  await load({ url: `${bare.url}/api/v1/cases/${caseId}`, duration: 2 });
  await load({ url: `${server.url}/api/v1/cases/${caseId}`, headers: auth, duration: 2 });

  const tpcb: number[] = [];
  const fresh: LoadResult[] = [];
  const baseline: LoadResult[] = [];
  const read: LoadResult[] = [];
  const replay: LoadResult[] = [];
  let peakRss = 0;
  const statements = { fresh: 0, read: 0, replay: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    tpcb.push(await pgbench.tps(duration));
    const created = await withStatements(server.url, freshSessions);
    fresh.push(created.result);
    statements.fresh = created.perRequest;
    baseline.push(await bareReads());
    const measured = await withPeakRss(server.pid, () => withStatements(server.url, reads));
    read.push(measured.result.result);
    statements.read = measured.result.perRequest;
    peakRss = Math.max(peakRss, measured.peakMb);
    baseline.push(await bareReads());
    const replayed = await withStatements(server.url, replays);
    replay.push(replayed.result);
    statements.replay = replayed.perRequest;
  }

  const tps = tpcb.reduce((s, v) => s + v, 0) / tpcb.length;
  const [f, b, r, p] = [mean(fresh), mean(baseline), mean(read), mean(replay)];
  console.log(`${'pgbench TPC-B, 10 clients, prepared'.padEnd(44)} ${tps.toFixed(0).padStart(7)} tps   (runs: ${tpcb.map((v) => v.toFixed(0)).join(', ')})`);
  console.log(row('POST /api/v1/sessions (new keys)', f, `runs: ${fresh.map((x) => x.requestsPerSecond.toFixed(0)).join(', ')}`));
  console.log(row('bare Fastify route (baseline)', b, `runs: ${baseline.map((x) => x.requestsPerSecond.toFixed(0)).join(', ')}`));
  console.log(row('GET /api/v1/cases/{id}', r, `runs: ${read.map((x) => x.requestsPerSecond.toFixed(0)).join(', ')}`));
  console.log(row('POST /api/v1/sessions (replays)', p, `runs: ${replay.map((x) => x.requestsPerSecond.toFixed(0)).join(', ')}`));
  console.log('\nratios (same run):');
  console.log(`  sessions, new keys / pgbench TPC-B   ${(f.requestsPerSecond / tps).toFixed(2)}   goal ≥ 0.30`);
  console.log(`  case read / bare Fastify             ${(r.requestsPerSecond / b.requestsPerSecond).toFixed(2)}   goal ≥ 0.50; p99 ${r.p99} ms, goal ≤ 20 ms`);
  console.log(`  replays / bare Fastify               ${(p.requestsPerSecond / b.requestsPerSecond).toFixed(2)}   goal ≥ 0.50`);
  console.log(
    `  statements per request (round trips, BEGIN/COMMIT included): session creation ${statements.fresh.toFixed(1)}, case read ${statements.read.toFixed(2)}, replay ${statements.replay.toFixed(2)}`,
  );
  console.log(`  RSS idle ${idleRss.toFixed(0)} MB (goal ≤ 150), peak under the read load ${peakRss.toFixed(0)} MB (goal ≤ 400)`);
} finally {
  bare.stop();
  await server.stop();
  await db.drop();
  await pgbench.drop();
}
