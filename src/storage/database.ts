import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database, Db } from './schema.ts';
import { tryAcquireEmbeddedLock, type EmbeddedLock } from './embedded-lock.ts';

export type DatabaseTarget =
  /** A PostgreSQL server. `schema`, when given, becomes the search_path (tests isolate themselves this way). */
  | { kind: 'postgres'; url: string; schema?: string; poolSize?: number }
  /** PGlite persisted under dataDir, guarded by the lock file. */
  | { kind: 'embedded'; dataDir: string }
  /** PGlite in memory, optionally restored from a dump (tests clone a migrated template). */
  | { kind: 'embedded-memory'; loadDataDir?: Blob };

export interface DatabaseHandle {
  readonly db: Db;
  readonly kind: 'postgres' | 'embedded';
  /** The embedded engine, when there is one (tests dump it as a template). */
  readonly pglite?: PGlite;
  /** The connection pool right now (/metrics reads it). */
  poolStats(): PoolStats;
  close(): Promise<void>;
}

export interface PoolStats {
  max: number;
  inUse: number;
  idle: number;
  /** Queries waiting for a connection: above zero for long, the pool is too small or queries too slow. */
  waiting: number;
  /** Statements sent since the process started, BEGIN and COMMIT included: round trips to the database. */
  statements: number;
}

/**
 * Counts every statement a pooled client sends, Kysely's BEGIN/COMMIT included, by wrapping each
 * client's `query` as the pool connects it. The count is what the benchmark divides by requests
 * to report round trips per request (issue 16), and /metrics exposes it.
 */
function statsOf(pool: pg.Pool, max: number): () => PoolStats {
  let statements = 0;
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      statements++;
      return query(...args);
    };
  });
  return () => ({ max, inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount, statements });
}

export class EmbeddedDatabaseBusyError extends Error {
  override name = 'EmbeddedDatabaseBusyError';
  readonly ownerPid: number;
  constructor(ownerPid: number) {
    super(`the embedded database is owned by process ${ownerPid}`);
    this.ownerPid = ownerPid;
  }
}

export async function openDatabase(target: DatabaseTarget): Promise<DatabaseHandle> {
  if (target.kind === 'postgres') return openPostgres(target.url, target.schema, target.poolSize);
  if (target.kind === 'embedded-memory') {
    const pglite = await PGlite.create(target.loadDataDir ? { loadDataDir: target.loadDataDir } : {});
    return wrapPglite(pglite, () => {});
  }
  const attempt = tryAcquireEmbeddedLock(target.dataDir);
  if (!attempt.ok) throw new EmbeddedDatabaseBusyError(attempt.ownerPid);
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(join(target.dataDir, 'pgdata'));
  } catch (err) {
    attempt.lock.release();
    throw err;
  }
  return wrapPglite(pglite, () => attempt.lock.release());
}

function openPostgres(url: string, schema: string | undefined, poolSize = 10): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    ...(schema ? { options: `-c search_path=${quoteIdent(schema)}` } : {}),
  });
  // An idle client losing its server connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: 'postgres', poolStats: statsOf(pool, poolSize), close: () => db.destroy() };
}

function wrapPglite(pglite: PGlite, releaseLock: EmbeddedLock['release']): DatabaseHandle {
  // PGlite is one connection: a pool of one serialises transactions, which is the only safe use.
  const pool = new pg.Pool({ ...(createPgConfig(pglite) as object), max: 1, idleTimeoutMillis: 0 });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    kind: 'embedded',
    pglite,
    poolStats: statsOf(pool, 1),
    async close() {
      await db.destroy();
      await pglite.close();
      releaseLock();
    },
  };
}

export function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unsafe identifier: ${name}`);
  return `"${name}"`;
}

/** Readiness probe: the database answers a trivial query. */
export async function pingDatabase(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
