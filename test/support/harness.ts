import { readFileSync } from 'node:fs';
import type { FastifyInstance, RouteOptions } from 'fastify';
import pg from 'pg';
import { pino, type Logger } from 'pino';
import { describe, inject, it } from 'vitest';
import type { AppContext } from '../../src/domain/deps.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { ExtractionPool } from '../../src/domain/documents/extraction-port.ts';
import { createExtractionPool } from '../../src/jobs/extraction-pool.ts';
import { createApiKey, type CreateApiKeyInput } from '../../src/domain/keys/keys.ts';
import { createOrg, type CreateOrgInput } from '../../src/domain/orgs/orgs.ts';
import { buildServer } from '../../src/http/server.ts';
import { ManualClock, type Clock } from '../../src/ports/clock.ts';
import { randomBase62 } from '../../src/ports/ids.ts';
import type { RateLimitStore } from '../../src/ports/rate-limit-store.ts';
import { openRuntime, type Runtime } from '../../src/runtime.ts';
import { quoteIdent, type DatabaseTarget } from '../../src/storage/database.ts';
import { databaseUrl } from './test-databases.ts';

export type BackendKind = 'embedded' | 'postgres';

/** The databases every storage-touching test runs against: PGlite always, PostgreSQL when reachable (required in CI). */
export function backends(): BackendKind[] {
  return inject('postgresUrl') ? ['embedded', 'postgres'] : ['embedded'];
}

/** `describe` once per backend, with the backend in the title. */
export function describeEachBackend(title: string, body: (backend: BackendKind) => void): void {
  for (const backend of backends()) describe(`${title} [${backend}]`, () => body(backend));
}

/**
 * A concurrency test: registered for the PostgreSQL backend only. PGlite has one connection, so
 * its transactions run one after another and a PGlite pass would prove nothing about races.
 * PostgreSQL is required under CI=true (global setup fails the run without it), so these always
 * run in CI.
 */
export function itOnPostgres(backend: BackendKind, title: string, body: () => Promise<void>, timeoutMs?: number): void {
  if (backend === 'postgres') it(`${title} (PostgreSQL: PGlite cannot race)`, body, timeoutMs);
}

export interface TestTarget {
  target: DatabaseTarget;
  /** Releases what the target holds (a PostgreSQL copy is dropped after the run instead). */
  dispose(): Promise<void>;
}

/**
 * A fresh, isolated database: PGlite cloned from the migrated template, or on PostgreSQL a copy of
 * the run's migrated template database. `empty` gives an unmigrated one instead, for the tests of
 * migration itself (PostgreSQL only: the embedded template is migrated).
 */
export async function freshDatabase(backend: BackendKind, options: { empty?: boolean } = {}): Promise<TestTarget> {
  if (backend === 'embedded') {
    const bytes = readFileSync(inject('pgliteTemplate'));
    return { target: { kind: 'embedded-memory', loadDataDir: new Blob([bytes]) }, dispose: async () => {} };
  }
  const url = inject('postgresUrl');
  const template = inject('postgresTemplate');
  if (!url || !template) throw new Error('PostgreSQL is not available');
  const database = `${template.prefix}_${randomBase62(10).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create database ${quoteIdent(database)}${options.empty === true ? '' : ` template ${quoteIdent(template.database)}`}`);
  } finally {
    await admin.end();
  }
  const target = { kind: 'postgres' as const, url: databaseUrl(url, database), schema: 'public', poolSize: 5 };
  // Dropped after the run (test/support/drop-test-databases.ts): a drop costs a checkpoint.
  return { target, dispose: async () => {} };
}

let extractionPool: ExtractionPool | undefined;

/**
 * One extraction pool per test worker, shared by the test apps it starts one after another: each
 * app forking its own children costs 0.3–0.45 s for its first document and 2–5 s more to load the
 * OCR engine for its first scan. An app whose env sets EXTRACTION_* gets a pool of its own.
 */
function sharedExtractionPool(config: Config): ExtractionPool {
  extractionPool ??= createExtractionPool({ size: config.extractionProcesses, maxRssBytes: config.extractionMemoryMb * 1024 * 1024 });
  return extractionPool;
}

const postgresUrls = new WeakMap<AppContext, string>();

/** The PostgreSQL database a test app's context runs on (LISTEN and second connections need it), or null for PGlite. */
export function postgresUrlOf(ctx: AppContext): string | null {
  return postgresUrls.get(ctx) ?? null;
}

export const silentLogger = pino({ level: 'silent' });

export interface TestApp {
  backend: BackendKind;
  ctx: AppContext;
  app: FastifyInstance;
  runtime: Runtime;
  clock: Clock;
  /** A workspace with a `*` test key, ready to call the API with. */
  workspace(options?: Partial<CreateOrgInput> & { keys?: Omit<CreateApiKeyInput, 'orgId'>[] }): Promise<TestWorkspace>;
  createKey(orgId: string, options?: Partial<Omit<CreateApiKeyInput, 'orgId'>>): Promise<{ key: string; key_id: string }>;
  close(): Promise<void>;
}

export interface TestWorkspace {
  orgId: string;
  key: string;
  keyId: string;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: Clock;
  rateLimits?: RateLimitStore;
  /** Extra routes for tests of cross-cutting behaviour (auth, envelopes) that no real route isolates. */
  routes?: (app: FastifyInstance) => void;
  logger?: Logger;
  /** Sees every route as the server adds it. */
  onRoute?: (route: RouteOptions) => void;
}

/** A whole service on a fresh database, talked to through Fastify's inject. */
export async function createTestApp(backend: BackendKind, options: TestAppOptions = {}): Promise<TestApp> {
  const db = await freshDatabase(backend);
  const config = loadConfig({ LOG_LEVEL: options.logger ? 'info' : 'silent', DOSSIER_SECRET: 'test-secret-test-secret-test-secret-0123', VALIDATE_RESPONSES: 'true', AUTH_FAILURES_PER_MINUTE: '1000000', ...options.env });
  const clock = options.clock ?? new ManualClock(new Date());
  const runtime = await openRuntime(config, {
    logger: options.logger ?? silentLogger,
    clock,
    target: db.target,
    ...(Object.keys(options.env ?? {}).some((k) => k.startsWith('EXTRACTION_')) ? {} : { extraction: sharedExtractionPool(config) }),
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
  });
  const app = await buildServer(runtime.ctx, options.onRoute ? { onRoute: options.onRoute } : {});
  options.routes?.(app);
  await app.ready();
  const ctx = runtime.ctx;
  if (db.target.kind === 'postgres') postgresUrls.set(ctx, db.target.url);

  const createKey: TestApp['createKey'] = async (orgId, keyOptions = {}) => {
    const created = await createApiKey(ctx, { orgId, environment: 'test', scopes: ['*'], ...keyOptions });
    if (!created.ok) throw new Error(created.message);
    return { key: created.value.key, key_id: created.value.key_id };
  };

  return {
    backend,
    ctx,
    app,
    runtime,
    clock,
    createKey,
    async workspace(wsOptions = {}) {
      const org = await createOrg(ctx, { name: 'Test workspace', acceptLegal: true, ...wsOptions });
      const key = await createKey(org.org_id);
      return { orgId: org.org_id, key: key.key, keyId: key.key_id };
    },
    async close() {
      await app.close();
      await runtime.close().catch(() => {});
      await db.dispose();
    },
  };
}

/** Waits for a condition instead of sleeping a fixed time. */
export async function until<T>(probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 10_000, everyMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
