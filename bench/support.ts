import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { randomBase62 } from '../src/ports/ids.ts';
import { quoteIdent } from '../src/storage/database.ts';
import { postgresUrlForSchema } from '../test/support/processes.ts';

export const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Where the bench's processes run (issue 29): the load generator (this process, and pgbench) on
 * core 0, the server under test and the bare reference on core 1, so that neither takes the
 * other's core. Issue 16 found the server idle a fifth of a replay run while autocannon, on the
 * same two cores, parsed its answers, and the bare reference moving 2× from run to run.
 * PostgreSQL itself is not ours to pin (it is shared with the machine), so it runs on both cores,
 * for the reference and for us alike. `BENCH_PIN=0` turns pinning off.
 */
export interface CpuPinning {
  /** What was done, printed at the top of every bench. */
  readonly description: string;
  /** Pins a running process, every thread of it (`taskset -a -p`), to the server core. */
  pinServer(pid: number): void;
  /** A command prefix that starts a load generator (pgbench) on the load generator's core. */
  loadGeneratorPrefix(): string[];
}

function taskset(args: string[]): boolean {
  const run = spawnSync('taskset', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  return run.status === 0;
}

let pinning: CpuPinning | undefined;

/** Pins this process (the load generator) on first call and says what it did. */
export function cpuPinning(): CpuPinning {
  if (pinning) return pinning;
  const cores = availableParallelism();
  const unpinned = (why: string): CpuPinning => ({
    description: `not pinned (${why}): load generator and server share ${cores} core${cores === 1 ? '' : 's'}`,
    pinServer: () => undefined,
    loadGeneratorPrefix: () => [],
  });
  if (process.env.BENCH_PIN === '0') pinning = unpinned('BENCH_PIN=0');
  else if (cores < 2) pinning = unpinned(`${cores} core`);
  else if (!taskset(['-p', String(process.pid)])) pinning = unpinned('no taskset');
  else if (!taskset(['-a', '-p', '-c', '0', String(process.pid)])) pinning = unpinned('taskset refused to pin this process');
  else {
    pinning = {
      description: `pinned with taskset: load generator (autocannon in the bench process, pgbench) on core 0, server and bare reference on core 1 (of ${cores}); PostgreSQL unpinned`,
      pinServer(pid) {
        if (!taskset(['-a', '-p', '-c', '1', String(pid)])) throw new Error(`taskset could not pin process ${pid} to core 1`);
      },
      loadGeneratorPrefix: () => ['taskset', '-c', '0'],
    };
  }
  return pinning;
}

/** CPU time (user + system, all threads) a process has used so far, in microseconds, from /proc. */
export function cpuMicros(pid: number): number {
  // Fields after the command name (which may hold spaces, hence the last ')'): utime is the 14th field, stime the 15th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / CLOCK_TICKS;
}

const CLOCK_TICKS = (() => {
  const run = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const ticks = Number(run.stdout?.trim());
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
})();

/** Median and spread of a few runs' figures. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spread(values: number[]): Spread {
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN };
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

/** `12,345 (11,900–12,800)`, with `digits` decimals. */
export function formatSpread(s: Spread, digits = 0): string {
  const f = (v: number) => v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
}

/**
 * The environment a benchmarked `dossier serve` runs with: limits out of the way, quiet logs, and
 * no response re-validation (tests turn it on; it is not what a deployment pays).
 */
export function benchServerEnv(databaseUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    // BENCH_REDIS_URL: the topology of several processes, with rate limits and the case revision mirror in Redis.
    ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {}),
    DOSSIER_SECRET: 'b'.repeat(40),
    RATE_LIMIT_PER_MINUTE: '100000000',
    TEST_SESSIONS_PER_MONTH: '100000000',
    LOG_LEVEL: 'warn',
    VALIDATE_RESPONSES: 'false',
  };
}

/** A fresh schema for one bench run, dropped afterwards. */
export async function benchSchema(): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `bench_${randomBase62(10).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create schema ${quoteIdent(schema)}`);
  await admin.end();
  return {
    url: postgresUrlForSchema(POSTGRES_URL, schema),
    async drop() {
      const c = new pg.Client({ connectionString: POSTGRES_URL });
      await c.connect();
      await c.query(`drop schema if exists ${quoteIdent(schema)} cascade`);
      await c.end();
    },
  };
}

export interface LoadResult {
  requestsPerSecond: number;
  /** Requests completed in the run. */
  total: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** CPU microseconds the server process used per completed request during the run (`cpuOf`), when measured. */
  cpuPerRequestUs?: number;
  /** CPU microseconds the load generator (this process) used per completed request. */
  loadGeneratorCpuPerRequestUs: number;
}

/**
 * Runs autocannon (32 connections, 8 s unless told). With `cpuOf`, also the CPU that process
 * (the server) used per completed request, from /proc before and after: steadier than the rate on
 * a shared machine, since time the server spends descheduled does not count.
 */
export async function load(options: autocannon.Options, cpuOf?: number): Promise<LoadResult> {
  const cpuBefore = cpuOf === undefined ? 0 : cpuMicros(cpuOf);
  const ownBefore = process.cpuUsage();
  const result = await autocannon({ connections: 32, duration: 8, ...options });
  const cpu = cpuOf === undefined ? undefined : cpuMicros(cpuOf) - cpuBefore;
  const own = process.cpuUsage(ownBefore);
  return {
    loadGeneratorCpuPerRequestUs: (own.user + own.system) / Math.max(1, result.requests.total),
    ...(cpu === undefined ? {} : { cpuPerRequestUs: cpu / Math.max(1, result.requests.total) }),
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

export function row(name: string, r: LoadResult, extra = ''): string {
  const cpu = r.cpuPerRequestUs === undefined ? '' : `  ${r.cpuPerRequestUs.toFixed(0).padStart(5)} µs CPU/req`;
  return `${name.padEnd(44)} ${r.requestsPerSecond.toFixed(0).padStart(7)} req/s  p50 ${String(r.p50).padStart(4)} ms  p99 ${String(r.p99).padStart(4)} ms  non-2xx ${r.non2xx}  errors ${r.errors}${cpu}${extra ? `  ${extra}` : ''}`;
}
