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
  /**
   * Hands every case revision this process's statements move to `mirror` (migration 0027's
   * notices): a transaction's just before its COMMIT is sent, a statement outside a transaction's
   * as soon as it completes, before the caller goes on. One mirror per handle.
   */
  mirrorCaseRevisions(mirror: CaseRevisionSink): void;
  /**
   * A connection of its own, outside the pool, whose session outlives its statements: what
   * session-level advisory locks need (the webhook delivery lease, issue 29). Null on the embedded
   * database, where the one connection is one session shared by everything in the process.
   * Counted and mirrored as the pool's statements are.
   */
  openSession(): DatabaseSession | null;
  close(): Promise<void>;
}

export interface DatabaseSession {
  readonly db: Db;
  /**
   * Moves whenever the connection is lost or replaced (it reconnects on the next statement): a
   * session lock taken under an earlier value was released by PostgreSQL with that connection.
   */
  readonly generation: number;
  close(): Promise<void>;
}

/** Receives the revisions a transaction or statement moved (case id → highest revision it wrote). */
export type CaseRevisionSink = (revisions: ReadonlyMap<string, number>) => Promise<void>;

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
 *
 * The same wrapper carries case revisions to the mirror (issue 29, `mirrorCaseRevisions`): the
 * revision trigger raises a notice naming the case and its new revision (migration 0027), which
 * PostgreSQL sends on the connection before the statement completes. Inside a transaction they
 * are handed over before COMMIT is sent; early is harmless, late is not. A reader trusts its held
 * text only while the mirror shows exactly the revision it holds, so a revision mirrored for a
 * transaction that then rolls back (or one not yet committed) only sends readers to the database,
 * while one mirrored after COMMIT would leave a window in which a webhook receiver, woken by the
 * committed outbox row, reads the older text. Outside a transaction a statement commits as it
 * completes, so its notices are handed over then, before its caller continues.
 */
function statsOf(pool: pg.Pool, max: number, prepare = false, shared: SharedCounters = { statements: 0 }): { stats: () => PoolStats; mirrorCaseRevisions(mirror: CaseRevisionSink): void } {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    /** Revisions this connection's open transaction (or running statement) moved. */
    const moved = new Map<string, number>();
    let inTransaction = false;
    client.on('notice', (notice: { message?: string }) => {
      if (!shared.sink) return;
      const revision = caseRevisionOfNotice(notice.message);
      if (revision) moved.set(revision.caseId, Math.max(moved.get(revision.caseId) ?? 0, revision.revision));
    });
    const handOver = async (): Promise<void> => {
      if (moved.size === 0 || !shared.sink) return void moved.clear();
      const revisions = new Map(moved);
      moved.clear();
      await shared.sink(revisions);
    };
    (client as { query: unknown }).query = (...args: unknown[]) => {
      shared.statements++;
      const [text, values] = args;
      if (typeof text !== 'string' || typeof args.at(-1) === 'function') return query(...args);
      const control = text.length <= 64 ? transactionControl(text) : undefined;
      if (control === 'begin') {
        moved.clear();
        inTransaction = true;
      } else if (control === 'rollback') {
        moved.clear();
        inTransaction = false;
      } else if (control === 'commit') {
        inTransaction = false;
        // Mirrored before COMMIT goes out: see above. A mirror that fails has logged it and resolves.
        if (moved.size > 0 && shared.sink) return handOver().then(() => query(...args));
      }
      const sent = prepare && args.length === 2 && text.startsWith(PREPARED) ? query({ name: preparedName(text), text, values }) : query(...args);
      if (inTransaction || control !== undefined || !shared.sink) return sent;
      // Outside a transaction: the statement committed as it completed.
      return (sent as Promise<unknown>).then(
        async (result) => {
          await handOver();
          return result;
        },
        (err: unknown) => {
          moved.clear();
          throw err;
        },
      );
    };
  });
  return {
    stats: () => ({ max, inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount, statements: shared.statements }),
    mirrorCaseRevisions(mirror) {
      if (shared.sink) throw new Error('case revisions already have a mirror');
      shared.sink = mirror;
    },
  };
}

/** What a handle's pool and its sessions share: the statement count and the revision mirror. */
interface SharedCounters {
  statements: number;
  sink?: CaseRevisionSink;
}

/** Kysely's transaction statements ('begin', 'start transaction …', 'commit', 'rollback'; savepoints are none of them). */
function transactionControl(text: string): 'begin' | 'commit' | 'rollback' | undefined {
  const t = text.trim().toLowerCase();
  if (t === 'begin' || t.startsWith('start transaction')) return 'begin';
  if (t === 'commit') return 'commit';
  if (t === 'rollback') return 'rollback';
  return undefined;
}

/** The notice migration 0027's trigger raises: `dossier_case_revision <case id> <revision>`. */
export const CASE_REVISION_NOTICE = 'dossier_case_revision';

function caseRevisionOfNotice(message: string | undefined): { caseId: string; revision: number } | undefined {
  if (message === undefined || !message.startsWith(CASE_REVISION_NOTICE)) return undefined;
  const [, caseId, revision] = message.split(' ');
  const n = Number(revision);
  return caseId && Number.isFinite(n) ? { caseId, revision: n } : undefined;
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
  // The case revision notices (migration 0027) must reach us whatever the role or database sets.
  const options = `-c client_min_messages=notice${schema ? ` -c search_path=${quoteIdent(schema)}` : ''}`;
  const pool = new pg.Pool({ connectionString: url, max: poolSize, options });
  // An idle client losing its server connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const shared: SharedCounters = { statements: 0 };
  const { stats, mirrorCaseRevisions } = statsOf(pool, poolSize, true, shared);
  const sessions = new Set<DatabaseSession>();
  return {
    db,
    kind: 'postgres',
    poolStats: stats,
    mirrorCaseRevisions,
    openSession() {
      const session = openSession(url, options, shared, () => sessions.delete(session));
      sessions.add(session);
      return session;
    },
    async close() {
      await Promise.all([...sessions].map((s) => s.close()));
      await db.destroy();
    },
  };
}

/**
 * A pool of one that never lets its connection go idle-closed, so the session (and its advisory
 * locks) lasts as long as the connection. If the connection breaks, the pool drops it and the next
 * statement opens another: `generation` moves on both, so the caller knows its locks are gone.
 * TCP keepalives on both ends: a worker's host that vanishes without closing the socket (power, a
 * network partition) has its session, and its locks, ended by PostgreSQL within about a minute
 * (30 s idle, then 3 probes 10 s apart) rather than the operating system's two hours.
 */
function openSession(url: string, options: string, shared: SharedCounters, onClose: () => void): DatabaseSession {
  const pool = new pg.Pool({
    connectionString: url,
    max: 1,
    idleTimeoutMillis: 0,
    keepAlive: true,
    keepAliveInitialDelayMillis: 30_000,
    options: `${options} -c tcp_keepalives_idle=30 -c tcp_keepalives_interval=10 -c tcp_keepalives_count=3`,
  });
  let generation = 0;
  pool.on('error', () => void generation++);
  pool.on('connect', () => void generation++);
  pool.on('remove', () => void generation++);
  statsOf(pool, 1, true, shared);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  let closed: Promise<void> | undefined;
  return {
    db,
    get generation() {
      return generation;
    },
    close() {
      closed ??= db.destroy().finally(onClose);
      return closed;
    },
  };
}

async function wrapPglite(pglite: PGlite, releaseLock: EmbeddedLock['release']): Promise<DatabaseHandle> {
  const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
  // PGlite is one connection: a pool of one serialises transactions, which is the only safe use.
  const pool = new pg.Pool({ ...(createPgConfig(pglite) as object), max: 1, idleTimeoutMillis: 0 });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const { stats, mirrorCaseRevisions } = statsOf(pool, 1);
  return {
    db,
    kind: 'embedded',
    pglite,
    poolStats: stats,
    mirrorCaseRevisions,
    openSession: () => null,
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
