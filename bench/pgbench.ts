/**
 * The database's own write limit, as the reference for session creation: pgbench's TPC-B-like
 * script (5 statements per transaction), 10 clients, prepared statements, on a scratch database of
 * the same PostgreSQL server, created here and dropped by `drop()`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { randomBase62 } from '../src/ports/ids.ts';
import { quoteIdent } from '../src/storage/database.ts';
import { cpuPinning } from './support.ts';

const run = promisify(execFile);

export interface PgbenchTarget {
  tps(seconds: number): Promise<number>;
  drop(): Promise<void>;
}

function connectionArgs(url: URL, database: string): string[] {
  return ['-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres'), database];
}

export async function pgbenchTarget(adminUrl: string): Promise<PgbenchTarget> {
  const url = new URL(adminUrl);
  const database = `bench_tpcb_${randomBase62(8).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${quoteIdent(database)}`);
  await admin.end();
  // Scale 10: 10 branches, so 10 clients contend on branch rows no more than TPC-B intends.
  await run('pgbench', ['-i', '-q', '-s', '10', ...connectionArgs(url, database)], { maxBuffer: 16 << 20 });
  return {
    async tps(seconds) {
      // On the load generator's core, like autocannon (support.ts, cpuPinning).
      const [command, ...prefix] = [...cpuPinning().loadGeneratorPrefix(), 'pgbench'];
      const { stdout } = await run(command!, [...prefix, '-c', '10', '-j', '2', '-M', 'prepared', '-T', String(seconds), '-n', ...connectionArgs(url, database)], {
        maxBuffer: 16 << 20,
      });
      const match = /tps = ([\d.]+)/.exec(stdout);
      if (!match) throw new Error(`pgbench printed no tps:\n${stdout}`);
      return Number(match[1]);
    },
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${quoteIdent(database)} with (force)`);
      await c.end();
    },
  };
}
