/**
 * API core benchmark (not a test): against PostgreSQL, with the server in its own process and the
 * load generator (autocannon, 32 connections) in this one.
 *   - authenticated GET /api/v1/cases/{id} vs a bare Fastify route returning the same JSON from memory
 *     (goal: ≥ 0.5 of its throughput, p99 ≤ 20 ms);
 *   - POST /api/v1/sessions with new idempotency keys (goal ≥ 2 000/s) and replays (goal ≥ 5 000/s).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchSchema, load, row } from './support.ts';
import { runCli, startProcess } from '../test/support/processes.ts';

const EXAMPLE = fileURLToPath(new URL('../examples/case-types/income_verification.json', import.meta.url));
const duration = Number(process.env.BENCH_SECONDS ?? 8);

const db = await benchSchema();
const env = {
  DATABASE_URL: db.url,
  DOSSIER_SECRET: 'b'.repeat(40),
  RATE_LIMIT_PER_MINUTE: '100000000',
  TEST_SESSIONS_PER_MONTH: '100000000',
  LOG_LEVEL: 'warn',
  VALIDATE_RESPONSES: 'false',
};
const server = await startProcess(['serve', '--no-worker'], env);
try {
  const org = (await runCli(['org', 'create', '--name', 'Bench', '--json'], env)).json();
  const key = String((await runCli(['key', 'create', '--org', String(org.org_id), '--env', 'test', '--scopes', '*', '--json'], env)).json().key);
  await runCli(['case-type', 'put', '--org', String(org.org_id), '--file', EXAMPLE, '--json'], env);
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const created = await fetch(`${server.url}/api/v1/sessions`, {
    method: 'POST',
    headers: { ...auth, 'idempotency-key': 'bench-seed' },
    body: JSON.stringify({ case_type_id: 'income_verification' }),
  });
  const caseId = ((await created.json()) as { case_id: string }).case_id;
  const record = await (await fetch(`${server.url}/api/v1/cases/${caseId}`, { headers: auth })).text();

  const bare = await new Promise<{ url: string; stop(): void }>((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(new URL('./bare-server.ts', import.meta.url))], {
      env: { ...process.env, BARE_BODY: record },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout.once('data', (c: Buffer) => resolve({ url: JSON.parse(String(c)).url as string, stop: () => child.kill('SIGTERM') }));
    child.once('error', reject);
  });

  console.log(`case record: ${record.length} bytes; ${duration} s per run, 32 connections\n`);
  await load({ url: `${bare.url}/api/v1/cases/${caseId}`, duration: 2 });
  const baseline = await load({ url: `${bare.url}/api/v1/cases/${caseId}`, duration });
  bare.stop();
  await load({ url: `${server.url}/api/v1/cases/${caseId}`, headers: auth, duration: 2 });
  const read = await load({ url: `${server.url}/api/v1/cases/${caseId}`, headers: auth, duration });
  const ratio = read.requestsPerSecond / baseline.requestsPerSecond;
  console.log(row('bare Fastify route (baseline)', baseline));
  console.log(row('GET /api/v1/cases/{id}', read, `ratio ${ratio.toFixed(2)} (goal ≥ 0.50), p99 goal ≤ 20 ms`));

  let n = 0;
  const fresh = await load({
    url: `${server.url}/api/v1/sessions`,
    method: 'POST',
    headers: auth,
    duration,
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          headers: { ...(req.headers ?? {}), 'idempotency-key': `bench-${process.pid}-${++n}` },
          body: JSON.stringify({ case_type_id: 'income_verification' }),
        }),
      },
    ],
  });
  console.log(row('POST /api/v1/sessions (new keys)', fresh, `goal ≥ 2000/s → ${(fresh.requestsPerSecond / 2000).toFixed(2)}`));

  const replay = await load({
    url: `${server.url}/api/v1/sessions`,
    method: 'POST',
    headers: { ...auth, 'idempotency-key': 'bench-seed' },
    body: JSON.stringify({ case_type_id: 'income_verification' }),
    duration,
  });
  console.log(row('POST /api/v1/sessions (replays)', replay, `goal ≥ 5000/s → ${(replay.requestsPerSecond / 5000).toFixed(2)}`));
} finally {
  await server.stop();
  await db.drop();
}
