import autocannon from 'autocannon';
import pg from 'pg';
import { randomBase62 } from '../src/ports/ids.ts';
import { quoteIdent } from '../src/storage/database.ts';
import { postgresUrlForSchema } from '../test/support/processes.ts';

export const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh schema for one bench run, dropped afterwards. */
/**
 * The environment a benchmarked `dossier serve` runs with: limits out of the way, quiet logs, and
 * no response re-validation (tests turn it on; it is not what a deployment pays).
 */
export function benchServerEnv(databaseUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    DOSSIER_SECRET: 'b'.repeat(40),
    RATE_LIMIT_PER_MINUTE: '100000000',
    TEST_SESSIONS_PER_MONTH: '100000000',
    LOG_LEVEL: 'warn',
    VALIDATE_RESPONSES: 'false',
  };
}

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
}

export async function load(options: autocannon.Options): Promise<LoadResult> {
  const result = await autocannon({ connections: 32, duration: 8, ...options });
  return {
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

export function row(name: string, r: LoadResult, extra = ''): string {
  return `${name.padEnd(44)} ${r.requestsPerSecond.toFixed(0).padStart(7)} req/s  p50 ${String(r.p50).padStart(4)} ms  p99 ${String(r.p99).padStart(4)} ms  non-2xx ${r.non2xx}  errors ${r.errors}${extra ? `  ${extra}` : ''}`;
}
