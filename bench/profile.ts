/**
 * Where the API server's CPU goes under each benchmark load (issue 16; not a test). For each load
 * (session creation with new keys, case read, replay) it starts `dossier serve --no-worker` on
 * PostgreSQL with `--cpu-prof`, runs the load as bench/api.ts does (autocannon, 32 connections),
 * stops the server, and summarises the profile:
 *
 *   - only the samples of the measured run count (start-up and warm-up are cut by time);
 *   - each sample goes to the category of the nearest frame, leaf first, that a category claims,
 *     so a native leaf (a hash digest, a socket write) counts for the library that called it;
 *   - figures are CPU microseconds per request and shares of the server's busy time (idle excluded).
 *
 *   node bench/profile.ts [creation] [read] [replay]      (all three by default; BENCH_SECONDS, default 8)
 *   node bench/profile.ts --summarise file.cpuprofile      (categories of any profile, whole length)
 *
 * The load generator and the server are pinned to separate cores as in bench/api.ts (support.ts,
 * cpuPinning), so the idle share is the server waiting for work, not for a core.
 *
 * The .cpuprofile files stay in the printed directory: open them in Chrome DevTools for flame graphs.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSchema, benchServerEnv, cpuPinning, load, type LoadResult } from './support.ts';
import { runCli, startProcess } from '../test/support/processes.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const PG = 'pg protocol (pg, pg-pool, pg-protocol, pg-types; socket I/O to PostgreSQL)';

/** Categories in the brief's words; the first rule that claims a frame names it. */
const RULES: [string, (url: string, fn: string) => boolean][] = [
  ['garbage collection', (_u, fn) => fn === '(garbage collector)'],
  ['authentication', (u) => /src\/http\/plugins\/(authenticate|route-auth)|src\/domain\/keys\//.test(u)],
  ['rate limit', (u) => /rate-limiter-flexible|rate-limit/.test(u)],
  ['idempotency (incl. sealing)', (u) => /idempotency|secret-box/.test(u)],
  ['zod / validation', (u) => /node_modules\/zod\/|fastify-type-provider-zod|src\/http\/validation/.test(u)],
  ['JSON', (u, fn) => /fast-json-stringify|secure-json-parse|canonical-json|src\/storage\/json|http\/plugins\/json-body/.test(u) || (u === '' && (fn === 'parse' || fn === 'stringify'))],
  [PG, (u) => /node_modules\/(pg|pg-pool|pg-protocol|pg-types|postgres-[a-z]+)\//.test(u)],
  ['kysely (query building, compiling)', (u) => /node_modules\/kysely\//.test(u)],
  ['fastify routing / hooks / reply', (u) => /node_modules\/(fastify|find-my-way|avvio|@fastify\/[^/]+|fastify-plugin|light-my-request|fast-querystring)\//.test(u)],
  ['logging (pino)', (u) => /node_modules\/pino|src\/logging/.test(u)],
  ['crypto', (u) => /crypto/.test(u)],
  ['metrics (prom-client)', (u) => /prom-client|src\/metrics/.test(u)],
  ['case record rendering / projection', (u) => /src\/domain\/cases\/(case-record|projection|load-case|queue)/.test(u)],
  ['other app code (src/)', (u) => /\/src\//.test(u)],
];
const IDLE = new Set(['(idle)']);
/**
 * Socket and stream frames: a write to or read from PostgreSQL counts for pg (on this loaded
 * machine the writev system call to the database is the largest single cost of a creation);
 * every other socket frame is the HTTP server's I/O, whoever called it.
 */
const TRANSPORT = /^node:(_http_[a-z]+|http|net|stream|internal\/(http|streams\/[a-z_]+|stream_base_commons|net|js_stream_socket))$/;

export interface Summary {
  busyMs: number;
  idleMs: number;
  byCategory: Map<string, number>;
  /** Self time of leaf frames (function and file), to check what a category holds. */
  byLeaf: Map<string, { category: string; ms: number }>;
}

/** Busy time by category over the samples whose time (ms from the profile's start) is in [fromMs, toMs). */
export function summarise(profile: CpuProfile, fromMs = 0, toMs = Number.POSITIVE_INFINITY): Summary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const categoryOf = new Map<number, string>();
  const classify = (id: number): string => {
    const known = categoryOf.get(id);
    if (known) return known;
    const { url, functionName } = byId.get(id)!.callFrame;
    let category: string | undefined;
    if (IDLE.has(functionName)) category = 'idle';
    else if (functionName === '(program)') category = 'native, unattributed (program)';
    else category = RULES.find(([, claims]) => claims(url, functionName))?.[0];
    if (!category) {
      const up = parent.get(id);
      const above = up === undefined ? 'other (node internals, modules)' : classify(up);
      category = TRANSPORT.test(url) && above !== PG ? 'HTTP socket I/O (node http, net, streams)' : above;
    }
    categoryOf.set(id, category);
    return category;
  };
  const byCategory = new Map<string, number>();
  const byLeaf = new Map<string, { category: string; ms: number }>();
  let at = 0;
  let busyMs = 0;
  let idleMs = 0;
  profile.samples.forEach((id, i) => {
    const delta = (profile.timeDeltas[i] ?? 0) / 1000;
    at += delta;
    if (at < fromMs || at >= toMs) return;
    const category = classify(id);
    if (category === 'idle') {
      idleMs += delta;
      return;
    }
    busyMs += delta;
    byCategory.set(category, (byCategory.get(category) ?? 0) + delta);
    const { functionName, url } = byId.get(id)!.callFrame;
    const leaf = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|src)\//, '$1/')}`;
    const entry = byLeaf.get(leaf) ?? { category, ms: 0 };
    entry.ms += delta;
    byLeaf.set(leaf, entry);
  });
  return { busyMs, idleMs, byCategory, byLeaf };
}

export function formatSummary(title: string, s: Summary, requests?: number): string {
  const lines = [`${title}: busy ${s.busyMs.toFixed(0)} ms, idle ${s.idleMs.toFixed(0)} ms${requests ? `, ${requests} requests, ${((s.busyMs * 1000) / requests).toFixed(0)} µs CPU per request` : ''}`];
  for (const [category, ms] of [...s.byCategory].sort((a, b) => b[1] - a[1])) {
    const share = `${((100 * ms) / s.busyMs).toFixed(1)}%`.padStart(6);
    lines.push(`  ${share}  ${category.padEnd(50)}${requests ? ` ${((ms * 1000) / requests).toFixed(0).padStart(6)} µs/req` : ''}`);
  }
  if (process.env.PROFILE_TOP) {
    lines.push('  top leaf frames (self time):');
    for (const [leaf, { category, ms }] of [...s.byLeaf].sort((a, b) => b[1].ms - a[1].ms).slice(0, Number(process.env.PROFILE_TOP))) {
      lines.push(`    ${`${((100 * ms) / s.busyMs).toFixed(1)}%`.padStart(6)}  ${leaf.slice(0, 90).padEnd(90)} [${category}]`);
    }
  }
  return lines.join('\n');
}

function lastSampleMs(profile: CpuProfile): number {
  return profile.timeDeltas.reduce((s, d) => s + d, 0) / 1000;
}

async function profileLoads(loads: string[]): Promise<void> {
  const duration = Number(process.env.BENCH_SECONDS ?? 8);
  const EXAMPLE = fileURLToPath(new URL('../examples/case-types/income_verification.json', import.meta.url));
  const db = await benchSchema();
  const dir = mkdtempSync(join(tmpdir(), 'dossier-profile-'));
  const base = benchServerEnv(db.url);
  const pinning = cpuPinning();
  console.log(`${pinning.description}\n`);
  try {
    const org = (await runCli(['org', 'create', '--name', 'Profile', '--json'], base)).json();
    const key = String((await runCli(['key', 'create', '--org', String(org.org_id), '--env', 'test', '--scopes', '*', '--json'], base)).json().key);
    await runCli(['case-type', 'put', '--org', String(org.org_id), '--file', EXAMPLE, '--json'], base);
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    let n = 0;
    for (const name of loads) {
      const out = join(dir, name);
      const server = await startProcess(['serve', '--no-worker'], { ...base, NODE_OPTIONS: `${process.env.BENCH_NODE_OPTIONS ?? '--max-semi-space-size=8'} --cpu-prof --cpu-prof-dir=${out}` });
      pinning.pinServer(server.pid);
      let result: LoadResult;
      let tailMs: number;
      try {
        const seeded = await fetch(`${server.url}/api/v1/sessions`, {
          method: 'POST',
          headers: { ...auth, 'idempotency-key': `seed-${name}` },
          body: JSON.stringify({ case_type_id: 'income_verification' }),
        });
        const caseId = ((await seeded.json()) as { case_id: string }).case_id;
        const run = (seconds: number) =>
          name === 'creation'
            ? load({
                url: `${server.url}/api/v1/sessions`,
                method: 'POST',
                headers: auth,
                duration: seconds,
                requests: [
                  {
                    setupRequest: (req) => ({
                      ...req,
                      headers: { ...(req.headers ?? {}), 'idempotency-key': `profile-${process.pid}-${++n}` },
                      body: JSON.stringify({ case_type_id: 'income_verification' }),
                    }),
                  },
                ],
              })
            : name === 'replay'
              ? load({ url: `${server.url}/api/v1/sessions`, method: 'POST', headers: { ...auth, 'idempotency-key': `seed-${name}` }, body: JSON.stringify({ case_type_id: 'income_verification' }), duration: seconds })
              : load({ url: `${server.url}/api/v1/cases/${caseId}`, headers: auth, duration: seconds });
        await run(2); // warm-up (JIT, pool, caches): cut from the profile by time
        result = await run(duration);
        const ended = Date.now();
        await server.stop();
        tailMs = Date.now() - ended;
      } catch (err) {
        await server.stop();
        throw err;
      }
      const file = readdirSync(out).find((f) => f.endsWith('.cpuprofile'));
      if (!file) throw new Error(`no profile written in ${out}`);
      const profile = JSON.parse(readFileSync(join(out, file), 'utf8')) as CpuProfile;
      // The measured run ends roughly `tailMs` before the last sample (the shutdown after it).
      const end = lastSampleMs(profile) - tailMs;
      console.log(formatSummary(`${name} (${result.requestsPerSecond.toFixed(0)} req/s, profile ${join(out, file)})`, summarise(profile, end - duration * 1000, end), result.total));
      console.log('');
    }
  } finally {
    await db.drop();
  }
}

const args = process.argv.slice(2);
if (args[0] === '--summarise') {
  for (const file of args.slice(1)) console.log(formatSummary(file, summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile)));
} else {
  await profileLoads(args.length > 0 ? args : ['creation', 'read', 'replay']);
}
