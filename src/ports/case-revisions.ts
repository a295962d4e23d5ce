import type { Logger } from 'pino';

/**
 * Where each case's latest revision is mirrored by the process that wrote it (issue 29), so that
 * a reader holding rendered text of a case can check it is still current without a database round
 * trip. Written from the revision trigger's notices (src/storage/database.ts) before the writing
 * transaction's COMMIT is sent, so before it answers and before any webhook it queued can be
 * claimed; a statement outside a transaction is mirrored as soon as it completes.
 *
 * The mirror only ever rises (a late writer cannot lower it), and readers trust text they hold
 * only while the mirror shows exactly its revision. So a revision mirrored too early, or for a
 * transaction that rolled back, costs a database read and nothing else; an unknown case, an
 * expired entry or an unreachable mirror send the reader to the database check as before.
 */
export interface CaseRevisions {
  readonly kind: 'process' | 'redis';
  /** Mirrors revisions this process is writing. Never rejects: a failure is logged and readers time it out (see `redisCaseRevisions`). */
  record(revisions: ReadonlyMap<string, number>): Promise<void>;
  /** The mirrored revision, or undefined when none is known or the mirror cannot be read now. */
  current(caseId: string): Promise<number | undefined>;
  /** A revision the reader has just read from the database: raises the mirror to it, never lowers it. Never rejects. */
  learned(caseId: string, revision: number): Promise<void>;
  /** True while a shared mirror is unreachable (reads go to the database meanwhile). */
  degraded(): boolean;
  close(): Promise<void>;
}

/**
 * In process: right for the embedded database, which no other process can write (its lock file).
 * Bounded; a case pushed out is read from the database next time. With one connection, a reader's
 * database read cannot fall between a writer's mirroring and its COMMIT, so `learned` cannot lower
 * an entry (it only ever raises one anyway).
 */
export function processCaseRevisions(maxEntries = 50_000): CaseRevisions {
  const revisions = new Map<string, number>();
  const raise = (caseId: string, revision: number) => {
    const known = revisions.get(caseId);
    if (known !== undefined && known >= revision) return;
    if (known === undefined && revisions.size >= maxEntries) revisions.delete(revisions.keys().next().value as string);
    revisions.set(caseId, revision);
  };
  return {
    kind: 'process',
    async record(moved) {
      for (const [caseId, revision] of moved) raise(caseId, revision);
    },
    async current(caseId) {
      return revisions.get(caseId);
    },
    async learned(caseId, revision) {
      raise(caseId, revision);
    },
    degraded: () => false,
    async close() {},
  };
}

/** Raises each KEYS[i] to ARGV[i] when it is lower or missing, with a time to live of ARGV[#ARGV] ms. */
const RAISE_SCRIPT = `
local ttl = ARGV[#ARGV]
for i, key in ipairs(KEYS) do
  local current = tonumber(redis.call('GET', key))
  if current == nil or current < tonumber(ARGV[i]) then
    redis.call('SET', key, ARGV[i], 'PX', ttl)
  end
end
return 0`;

const KEY_PREFIX = 'dossier:case-revision:';

/**
 * In Redis, shared by every process of a deployment. Reads of one turn of the event loop go out
 * as one MGET. Entries live `ttlMs` (5 s): that bounds how long a wrong entry can mislead, the only
 * way one can arise being a writer that could not reach Redis while readers could (its mirror
 * failed, and it commits anyway: an outage of the mirror must not become an outage of writes), or
 * a process writing without REDIS_URL. Readers put back an entry that expired from what they read
 * in the database, so a hot case costs one database read per process per 5 s.
 *
 * When Redis is unreachable, `current` answers undefined at once (no offline queue) and every read
 * goes to the database; a command that hangs gives up after 250 ms.
 */
export async function redisCaseRevisions(url: string, logger?: Logger, ttlMs = 5_000): Promise<CaseRevisions> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true, commandTimeout: 250 });
  let lastError = '';
  let everFailed = false;
  const warn = (err: unknown, what: string) => {
    const message = err instanceof Error ? err.message : String(err);
    if (message !== lastError) logger?.warn({ err }, `case revision mirror in redis unavailable (${what}); case reads check the database meanwhile`);
    lastError = message;
  };
  client.on('error', (err: Error) => {
    warn(err, 'connection');
    everFailed = true;
  });
  client.on('ready', () => {
    if (everFailed) logger?.info('case revision mirror in redis reachable again');
    lastError = '';
  });
  try {
    await client.connect();
  } catch {
    // reported by the error listener; reads check the database until Redis answers
  }
  const ready = () => client.status === 'ready';
  // EVALSHA, falling back to EVAL when Redis does not hold the script yet.
  client.defineCommand('dossierRaiseRevisions', { lua: RAISE_SCRIPT });
  const raiseCommand = (client as unknown as { dossierRaiseRevisions(keys: number, ...args: string[]): Promise<unknown> }).dossierRaiseRevisions.bind(client);

  const raise = async (moved: ReadonlyMap<string, number> | [string, number][], what: string): Promise<void> => {
    if (!ready()) return;
    const entries = [...moved];
    if (entries.length === 0) return;
    try {
      await raiseCommand(entries.length, ...entries.map(([caseId]) => KEY_PREFIX + caseId), ...entries.map(([, r]) => String(r)), String(ttlMs));
    } catch (err) {
      warn(err, what);
    }
  };

  let waiting: { caseId: string; resolve(revision: number | undefined): void }[] | undefined;
  const flush = async () => {
    const batch = waiting ?? [];
    waiting = undefined;
    try {
      const ids = [...new Set(batch.map((w) => w.caseId))];
      const values = await client.mget(...ids.map((id) => KEY_PREFIX + id));
      const byId = new Map(ids.map((id, i) => [id, values[i] == null ? undefined : Number(values[i])]));
      for (const w of batch) w.resolve(byId.get(w.caseId));
    } catch (err) {
      warn(err, 'read');
      for (const w of batch) w.resolve(undefined);
    }
  };

  return {
    kind: 'redis',
    record: (moved) => raise(moved, 'write'),
    current(caseId) {
      if (!ready()) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        if (!waiting) {
          waiting = [];
          setImmediate(() => void flush());
        }
        waiting.push({ caseId, resolve });
      });
    },
    learned: (caseId, revision) => raise([[caseId, revision]], 'refresh'),
    degraded: () => !ready(),
    async close() {
      client.disconnect();
    },
  };
}
