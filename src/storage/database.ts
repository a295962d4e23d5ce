import { createHash } from 'node:crypto';
import { join } from 'node:path';
// PGlite loads only when the embedded database is opened: a server on PostgreSQL never runs its
// half a megabyte of source (issue 16, idle RSS).
import type { PGlite } from '@electric-sql/pglite';
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
 * Statements whose text starts with this comment run as named prepared statements on PostgreSQL:
 * each connection parses and plans them once instead of on every call. For the hottest writes
 * only (session creation, issue 16: planning took 0.3 ms of the 0.45 ms its first statement
 * costs the server, by EXPLAIN ANALYZE). Their text must not depend on the data beyond a bounded
 * set of shapes (each shape is one statement per connection), and their results must name their
 * columns: a `select *` would fail with "cached plan must not change result type" after a
 * migration adds a column under a running process.
 */
export const PREPARED = '/* prepared */ ';

const preparedNames = new Map<string, string>();

function preparedName(text: string): string {
  let name = preparedNames.get(text);
  if (!name) {
    name = `dossier_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    if (preparedNames.size > 1_000) preparedNames.clear();
    preparedNames.set(text, name);
  }
  return name;
}

/**
 * Counts every statement a pooled client sends, Kysely's BEGIN/COMMIT included, by wrapping each
 * client's `query` as the pool connects it. The count is what the benchmark divides by requests
 * to report round trips per request (issue 16), and /metrics exposes it. With `prepare`, texts
 * marked PREPARED go out as named statements (PGlite is left alone: it parses in process).
 */
function statsOf(pool: pg.Pool, max: number, prepare = false): () => PoolStats {
  let statements = 0;
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      statements++;
      const [text, values] = args;
      if (prepare && args.length === 2 && typeof text === 'string' && text.startsWith(PREPARED)) {
        return query({ name: preparedName(text), text, values });
      }
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
  const { PGlite } = await import('@electric-sql/pglite');
  if (target.kind === 'embedded-memory') {
    const pglite = await PGlite.create(target.loadDataDir ? { loadDataDir: target.loadDataDir } : {});
    return await wrapPglite(pglite, () => {});
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
  return await wrapPglite(pglite, () => attempt.lock.release());
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
  return { db, kind: 'postgres', poolStats: statsOf(pool, poolSize, true), close: () => db.destroy() };
}

async function wrapPglite(pglite: PGlite, releaseLock: EmbeddedLock['release']): Promise<DatabaseHandle> {
  const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
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
