/**
 * Run detached after a test run: drops the run's PostgreSQL databases (`<prefix>_…`), and those of
 * runs that started more than a day ago (a run killed before its teardown). Usage:
 * node drop-test-databases.ts SERVER_URL PREFIX
 */
import pg from 'pg';
import { quoteIdent } from '../../src/storage/database.ts';
import { TEST_DATABASE_PREFIX } from './test-databases.ts';

const [url, prefix] = process.argv.slice(2);
if (!url || !prefix) throw new Error('usage: drop-test-databases.ts SERVER_URL PREFIX');

const DAY_S = 86_400;
const client = new pg.Client({ connectionString: url });
await client.connect();
try {
  const { rows } = await client.query<{ datname: string }>('select datname from pg_database where datname like $1', [`${TEST_DATABASE_PREFIX}%`]);
  const now = Date.now() / 1000;
  for (const { datname } of rows) {
    const started = Number(datname.slice(TEST_DATABASE_PREFIX.length).split('_')[0]);
    const ours = datname.startsWith(`${prefix}_`);
    if (!ours && !(Number.isFinite(started) && now - started > DAY_S)) continue;
    await client.query(`drop database if exists ${quoteIdent(datname)} with (force)`).catch(() => {});
  }
} finally {
  await client.end();
}
