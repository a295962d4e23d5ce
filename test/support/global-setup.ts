import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/storage/database.ts';
import { migrate } from '../../src/storage/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    postgresUrl: string | null;
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
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  project.provide('redisUrl', (await redisReachable(redisUrl)) ? redisUrl : unavailable('Redis', redisUrl));

  return () => rmSync(dir, { recursive: true, force: true });
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
