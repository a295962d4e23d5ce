import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Redis } from 'ioredis';
import type { TestProject } from 'vitest/node';
import { openDatabase, quoteIdent } from '../../src/storage/database.ts';
import { migrate } from '../../src/storage/migrate.ts';
import { databaseUrl, TEST_DATABASE_PREFIX } from './test-databases.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    postgresUrl: string | null;
    /** The migrated database each PostgreSQL test copies, and the prefix this run names its copies with. */
    postgresTemplate: { database: string; prefix: string } | null;
    redisUrl: string | null;
  }
}

const required = process.env.CI === 'true';

/**
 * Builds one migrated PGlite database and dumps it: each test file loads the dump (~0.4 s)
 * instead of creating and migrating a fresh database (~3.5 s). Finds PostgreSQL and Redis; under
 * CI=true their absence fails the run instead of skipping their tests.
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-test-'));
  const handle = await openDatabase({ kind: 'embedded-memory' });
  await migrate(handle.db);
  const dump = await handle.pglite!.dumpDataDir('none');
  const templatePath = join(dir, 'pglite-template.tar');
  writeFileSync(templatePath, Buffer.from(await dump.arrayBuffer()));
  await handle.close();
  project.provide('pgliteTemplate', templatePath);

  const postgresUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const postgres = await postgresReachable(postgresUrl);
  // Installed once, before test files migrate their own schemas at the same time: two migrations
  // creating the extension at once would race on its name (migration 0025 then uses it from public).
  if (postgres) await installTrigramExtension(postgresUrl);
  project.provide('postgresUrl', postgres ? postgresUrl : unavailable('PostgreSQL', postgresUrl));
  const postgresTemplate = postgres ? await createPostgresTemplate(postgresUrl) : null;
  project.provide('postgresTemplate', postgresTemplate);
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  project.provide('redisUrl', (await redisReachable(redisUrl)) ? redisUrl : unavailable('Redis', redisUrl));

  return () => {
    rmSync(dir, { recursive: true, force: true });
    if (postgresTemplate) dropTestDatabasesLater(postgresUrl, postgresTemplate.prefix);
  };
}

/**
 * One migrated PostgreSQL database per run, which each test copies (`create database … template`,
 * 0.1–0.3 s) instead of migrating a schema of its own (1.3–2.5 s on a loaded machine, and hundreds
 * of tests do it). Its name carries the run's start time, so a later run can tell a leftover of a
 * killed run from a run still going on.
 */
async function createPostgresTemplate(url: string): Promise<{ database: string; prefix: string }> {
  const prefix = `${TEST_DATABASE_PREFIX}${Math.floor(Date.now() / 1000)}_${Math.random().toString(36).slice(2, 8)}`;
  const database = `${prefix}_template`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create database ${quoteIdent(database)}`);
  } finally {
    await admin.end();
  }
  const handle = await openDatabase({ kind: 'postgres', url: databaseUrl(url, database), poolSize: 1 });
  try {
    await migrate(handle.db);
  } finally {
    await handle.close();
  }
  return { database, prefix };
}

/**
 * Dropping a database costs a checkpoint (0.3–3 s each here), so this run's copies are dropped
 * after it, by a detached process the run does not wait for, with leftovers of runs older than a
 * day.
 */
function dropTestDatabasesLater(url: string, prefix: string): void {
  const script = fileURLToPath(new URL('./drop-test-databases.ts', import.meta.url));
  const child = spawn(process.execPath, [script, url, prefix], { detached: true, stdio: 'ignore' });
  child.unref();
}

function unavailable(what: string, url: string): null {
  if (required) throw new Error(`${what} at ${url} is required under CI=true but is not reachable`);
  process.stderr.write(`warning: ${what} at ${url} is not reachable; its tests are skipped (they are required under CI=true)\n`);
  return null;
}

async function installTrigramExtension(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('create extension if not exists pg_trgm schema public');
  } finally {
    await client.end();
  }
}

async function postgresReachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function redisReachable(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2000 });
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
