/**
 * Operator console benchmark: `node bench/console.ts` (PostgreSQL at
 * postgres://postgres@127.0.0.1:5432/test, or BENCH_DATABASE_URL; a fresh schema, dropped after).
 *
 * 1. Queue page with 100 000 cases in the workspace (BENCH_CASES), each with an applicant's name
 *    and email among its answers and an employer fact: server time (Fastify inject, so no socket
 *    or browser in the figure) of GET /dashboard/cases for the default tab, every case, searches
 *    by external id, applicant name, email and a fact's value, a status filter and the second
 *    page. Goal (issue 27 §3): search p95 ≤ 50 ms on PostgreSQL. BENCH_DB=embedded runs the queue
 *    part on the embedded database instead, for its figure.
 * 2. Case page with a 20-page PDF: "first page image ready" = the case page plus the image
 *    request, on a case nobody has opened yet, as the document job left it (evidence pages drawn
 *    ahead of time in an extraction child). Goal ≤ 300 ms. Also: a page not drawn yet (the case
 *    page draws it on first view) and the same pair once cached.
 *
 * BENCH_PART=queue or BENCH_PART=images runs one part; BENCH_EXPLAIN=1 prints the query plans
 * (EXPLAIN ANALYZE) of the queue page's reads.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { pino } from 'pino';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { createOrg } from '../src/domain/orgs/orgs.ts';
import { putCaseType } from '../src/domain/case-types/case-types.ts';
import { createApiKey } from '../src/domain/keys/keys.ts';
import { createOperator } from '../src/domain/operators/operators.ts';
import { buildServer } from '../src/http/server.ts';
import { caseJobsTask, CASE_ENGINE_HANDLERS } from '../src/jobs/case-jobs.ts';
import { openRuntime } from '../src/runtime.ts';
import { DoneCountCache, queueCategoryCounts, readConsoleQueue } from '../src/domain/console/queue-page.ts';
import { resolveOperatorSession } from '../src/domain/operators/operator-sessions.ts';
import { parseQueueParams, queueView } from '../src/web/dashboard/cases/queue.ts';
import { searchQueueStatement } from '../src/storage/queue.ts';
import { renderDocument } from '../src/web/render.ts';
import { benchSchema, POSTGRES_URL } from './support.ts';
import { startDocumentServer } from '../test/documents/document-server.ts';
import incomeVerification from '../examples/case-types/income_verification.json' with { type: 'json' };

const CASES = Number(process.env.BENCH_CASES ?? 100_000);
const EMBEDDED = process.env.BENCH_DB === 'embedded';
const FIRST_NAMES = ['Jane', 'Amara', 'Luis', 'Mei', 'Oskar', 'Priya', 'Tomasz', 'Fatima', 'Kwame', 'Ingrid', 'Diego', 'Hana', 'Yusuf', 'Chloe', 'Ravi', 'Sofia', 'Emeka', 'Aiko', 'Lars', 'Nadia'];
const LAST_NAMES = ['Doe', 'Okafor', 'Garcia', 'Chen', 'Lindqvist', 'Sharma', 'Nowak', 'Haddad', 'Mensah', 'Berg', 'Alvarez', 'Tanaka', 'Demir', 'Martin', 'Iyer', 'Rossi', 'Eze', 'Sato', 'Nielsen', 'Karimi', 'Brown', 'Kowalski', 'Novak', 'Dubois', 'Moreau', 'Fischer', 'Weber', 'Silva', 'Costa', 'Kim', 'Park', 'Nguyen', 'Tran', 'Ali', 'Khan', 'Osei', 'Adeyemi', 'Walsh', 'Byrne', 'Murphy', 'Kelly', 'Jensen', 'Larsen', 'Virtanen', 'Korhonen', 'Horvat', 'Popescu', 'Ionescu', 'Papadopoulos', 'Quinn'];
const EMPLOYERS = ['Northwind Traders', 'Acme Widgets Inc', 'Globex Corporation', 'Initech', 'Umbrella Health', 'Stark Logistics', 'Wayne Foods', 'Hooli Services', 'Vandelay Imports', 'Soylent Farms'];
const QUEUE_SAMPLES = 60;
const IMAGE_SAMPLES = 8;

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}
const fmt = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(1).padStart(6)} ms  p95 ${percentile(xs, 95).toFixed(1).padStart(6)} ms  max ${Math.max(...xs).toFixed(1).padStart(6)} ms`;

async function twentyPagePdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 0; p < 20; p++) {
    const page = doc.addPage([595, 842]);
    const lines = p === 0 ? ['ACME WIDGETS INC', 'Earnings Statement', 'Employee name: Jane Doe', 'Employer: Acme Widgets Inc', 'Pay date: 06/05/2026', 'Gross pay: $2,450.00'] : [];
    for (let i = 0; i < 34; i++) lines.push(`Page ${p + 1} detail ${i + 1}: hours worked, deductions, year-to-date totals and notes`);
    lines.forEach((line, i) => page.drawText(line, { x: 50, y: 790 - i * 21, size: 11, font }));
  }
  return Buffer.from(await doc.save());
}

async function explainQueue(orgId: string): Promise<void> {
  const statements = [
    sql`select queue_category, count(*) from cases where org_id = ${orgId} and environment = 'test' and queue_category <> 'done' group by queue_category`,
    sql`select count(*) from cases where org_id = ${orgId} and environment = 'test' and queue_category = 'done'`,
    sql`select case_id, queue_row, status_changed_at from cases where org_id = ${orgId} and environment = 'test' and queue_category = 'review' order by status_changed_at, case_id limit 51`,
    sql`select case_id, queue_row, status_changed_at from cases where org_id = ${orgId} and environment = 'test' order by status_changed_at, case_id limit 51`,
    sql`select case_id, queue_row, status_changed_at from cases where org_id = ${orgId} and environment = 'test' and runtime_status = 'ready_for_review' order by status_changed_at, case_id limit 51`,
    // The search's "part of" arms (storage/queue.ts): migration 0028's trigram index on cases.search_text, 0025's on the facts' values.
    sql`select c.case_id from cases c where c.org_id = ${orgId} and c.environment = 'test' and c.search_text like '%okafor%' and strpos(c.search_text, 'okafor') > 0`,
    sql`select c.case_id from cases c where c.org_id = ${orgId} and c.environment = 'test' and c.search_text like '%4721%' and strpos(c.search_text, 'amara.4721@example.com') > 0`,
    sql`select f.case_id from facts f where f.org_id = ${orgId} and f.environment = 'test' and lower(f.value) like '%brewing%' and strpos(lower(f.value), 'brewing') > 0`,
  ];
  // The whole search statement (the page and the tab counts), for the slowest terms.
  for (const search of ['okafor', 'amara.4721@example.com']) statements.push(searchQueueStatement({ orgId, environment: 'test', limit: 50 }, search));
  for (const statement of statements) {
    const plan = await sql<{ 'QUERY PLAN': string }>`explain (analyze, buffers) ${statement}`.execute(ctx.db);
    console.log(`\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  }
}

const schema = EMBEDDED ? { url: '', drop: async () => {} } : await benchSchema();
const docs = await startDocumentServer({ '/stub.pdf': { body: await twentyPagePdf(), type: 'application/pdf' } });
const config = loadConfig({ DATABASE_URL: POSTGRES_URL, DOSSIER_ALLOW_PRIVATE_NETWORK: 'true', DOSSIER_SECRET: 'bench-secret-bench-secret-bench-secret-01', LOG_LEVEL: 'warn' });
const runtime = await openRuntime(config, {
  logger: pino({ level: 'warn' }),
  target: EMBEDDED ? { kind: 'embedded-memory' } : { kind: 'postgres', url: POSTGRES_URL, schema: new URL(schema.url).searchParams.get('options')!.split('=')[1]!, poolSize: 10 },
});
const { ctx } = runtime;
const app = await buildServer(ctx);
await app.ready();

try {
  const org = await createOrg(ctx, { name: 'Bench', acceptLegal: true });
  const put = await putCaseType(ctx, { orgId: org.org_id, environment: 'test', definition: incomeVerification });
  if (!put.ok) throw new Error('case type');
  const key = await createApiKey(ctx, { orgId: org.org_id, environment: 'test', scopes: ['*'] });
  if (!key.ok) throw new Error(key.message);
  const password = 'bench password bench password';
  const op = await createOperator(ctx, { orgId: org.org_id, email: 'bench@example.com', password, role: 'reviewer' });
  if (!op.ok) throw new Error(op.message);

  // The cases spread over the categories, inserted in one statement (the queue reads the cases
  // table, and the facts for a search): each has an applicant (name and email among its answers)
  // and an employer fact, so a search has real text to look through.
  const categories = ['review', 'exception', 'intake', 'processing', 'done'];
  const statuses = ['ready_for_review', 'ready_for_review', 'intake_in_progress', 'processing', 'complete'];
  const t0 = performance.now();
  await sql`
    insert into cases (case_id, org_id, environment, case_type_id, workflow_id, workflow_version, operating_mode, runtime_status, origin,
      external_case_id, external_applicant_id, status_changed_at, queue_category, queue_status, queue_row, structured_inputs, created_at, updated_at)
    select 'case_bench' || lpad(i::text, 14, '0'), ${org.org_id}, 'test', 'income_verification', 'income_verification', ${put.value.workflow_version},
      'system_of_action', (${sql.val(statuses)}::text[])[1 + i % 5], 'process', 'loan-' || i, 'applicant-' || i,
      now() - (i || ' minutes')::interval, (${sql.val(categories)}::text[])[1 + i % 5], 'ready',
      jsonb_build_object('case_id', 'case_bench' || lpad(i::text, 14, '0'), 'runtime_status', (${sql.val(statuses)}::text[])[1 + i % 5],
        'queue_category', (${sql.val(categories)}::text[])[1 + i % 5], 'why_here', 'An automatic check failed: an operator decides.', 'why_here_code', 'gate_failed',
        'blocking_items', jsonb_build_array(jsonb_build_object('kind', 'rule', 'id', 'name_matches', 'why', 'The name on the pay stub must match the applicant''s name.', 'fact_ids', jsonb_build_array('employee_name'), 'reason_codes', jsonb_build_array()))),
      jsonb_build_object('full_name', (${sql.val(FIRST_NAMES)}::text[])[1 + i % 20] || ' ' || (${sql.val(LAST_NAMES)}::text[])[1 + (i / 20) % 50] || case when i % 1000 = 7 then ' Zielinska' else '' end,
        'email', lower((${sql.val(FIRST_NAMES)}::text[])[1 + i % 20]) || '.' || i || '@example.com', 'stated_income', (30000 + i % 50000)::text),
      now() - (i || ' minutes')::interval, now()
    from generate_series(1, ${CASES}) as i`.execute(ctx.db);
  await sql`
    insert into facts (case_id, fact_id, org_id, environment, fact_label, status, value, source, updated_at)
    select 'case_bench' || lpad(i::text, 14, '0'), 'employer_name', ${org.org_id}, 'test', 'Employer name', 'resolved', (${sql.val(EMPLOYERS)}::text[])[1 + i % 10] || case when i % 997 = 3 then ' Brewing Co' else '' end, 'document_extraction', now()
    from generate_series(1, ${CASES}) as i`.execute(ctx.db);
  // What autovacuum leaves a table of this size in service: statistics and a visibility map, so
  // the tab counts are index-only scans rather than a walk of the heap.
  // Seeding the facts touched every case (their revision), leaving a dead version of each row.
  // VACUUM removes those only once no transaction older than the seed is open, and on a shared
  // server another session's may be: then the heap keeps both versions, the visibility map stays
  // empty, and the figures are of a table no service has. So it vacuums again (up to a minute)
  // until nothing dead remains, and says so if something still does.
  for (let attempt = 0; ; attempt++) {
    await sql`vacuum analyze cases`.execute(ctx.db);
    await sql`vacuum analyze facts`.execute(ctx.db);
    const dead = await sql<{ n: string }>`select coalesce(sum(n_dead_tup), 0) as n from pg_stat_user_tables where relid in ('cases'::regclass, 'facts'::regclass)`.execute(ctx.db);
    if (Number(dead.rows[0]!.n) === 0) {
      if (attempt > 0) console.log(`vacuumed ${attempt + 1} times before no dead row remained`);
      break;
    }
    if (attempt === 30) {
      console.log(`warning: ${dead.rows[0]!.n} dead rows remain after vacuum (another session holds an old snapshot): the figures below are not representative`);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  console.log(`seeded ${CASES} cases in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const loginPage = await app.inject({ method: 'GET', url: '/dashboard/login' });
  const nonce = /name="_csrf" value="([^"]+)"/.exec(loginPage.body)![1]!;
  const signedIn = await app.inject({
    method: 'POST',
    url: '/dashboard/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `dossier_login_csrf=${loginPage.cookies.find((c) => c.name === 'dossier_login_csrf')!.value}` },
    payload: new URLSearchParams({ _csrf: nonce, email: 'bench@example.com', password }).toString(),
  });
  const cookie = `dossier_dash=${signedIn.cookies.find((c) => c.name === 'dossier_dash')!.value}`;
  const get = async (url: string) => {
    const start = performance.now();
    const res = await app.inject({ method: 'GET', url, headers: { cookie } });
    const ms = performance.now() - start;
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
    return { ms, res };
  };

  const part = process.env.BENCH_PART;
  // ── 1. queue page ──────────────────────────────────────────────────────────────────────
  if (part !== 'images') {
  const first = await get('/dashboard/cases');
  const next = /href="([^"]*after=[^"]+)"/.exec(first.res.body)![1]!.replace(/&amp;/g, '&');
  const variants: [string, string][] = [
    ['default tab (review)', '/dashboard/cases'],
    ['every case', '/dashboard/cases?category=all'],
    ['search by external id', '/dashboard/cases?q=loan-4711'],
    ['search: a rare name', '/dashboard/cases?q=Zielinska'],
    ['search: a surname', '/dashboard/cases?q=okafor'],
    ['search: full name', '/dashboard/cases?q=Jane%20Doe'],
    ['search: an email', '/dashboard/cases?q=amara.4721%40example.com'],
    ['search: a fact value', '/dashboard/cases?q=Brewing'],
    ['status filter', '/dashboard/cases?category=all&status=ready_for_review'],
    ['second page', next],
  ];
  console.log(`\nQueue page, ${CASES} cases in the workspace (server time, ${QUEUE_SAMPLES} requests each):`);
  const all: number[] = [];
  const searches: number[] = [];
  for (const [name, url] of variants) {
    for (let i = 0; i < 5; i++) await get(url);
    const times: number[] = [];
    for (let i = 0; i < QUEUE_SAMPLES; i++) times.push((await get(url)).ms);
    all.push(...times);
    if (name.startsWith('search')) searches.push(...times);
    console.log(`  ${name.padEnd(24)} ${fmt(times)}`);
  }
  console.log(`  ${'all variants'.padEnd(24)} ${fmt(all)}   goal p95 ≤ 50 ms${EMBEDDED ? ' (PostgreSQL)' : ''}: ${percentile(all, 95) <= 50 ? 'met' : 'NOT met'}`);
  console.log(`  ${'searches only'.padEnd(24)} ${fmt(searches)}   on ${EMBEDDED ? 'the embedded database (no pg_trgm)' : 'PostgreSQL (pg_trgm)'}`);
  // As the dashboard reads: `done` counted once a minute per workspace, the rest every time.
  const doneCounts = new DoneCountCache();
  const reads: number[] = [];
  for (let i = 0; i < QUEUE_SAMPLES; i++) {
    const start = performance.now();
    await readConsoleQueue({ ...ctx, doneCounts }, { tenant: { orgId: org.org_id, environment: 'test' }, query: { category: 'review', runtimeStatus: undefined, caseTypeId: undefined, search: undefined, after: undefined, limit: 50 } });
    reads.push(performance.now() - start);
  }
  console.log(`  ${'  of which the reads'.padEnd(24)} ${fmt(reads)}`);
  // Where the rest goes: the session lookup every dashboard request makes, the tab counts alone,
  // and rendering the page (50 rows) to HTML.
  const sessionTimes: number[] = [];
  const countTimes: number[] = [];
  const renderTimes: number[] = [];
  const token = cookie.slice(cookie.indexOf('=') + 1);
  const queuePage = await readConsoleQueue(ctx, { tenant: { orgId: org.org_id, environment: 'test' }, query: { category: 'review', runtimeStatus: undefined, caseTypeId: undefined, search: undefined, after: undefined, limit: 50 } });
  if (!queuePage.ok) throw new Error('queue read');
  const viewer = { operatorId: 'op', email: 'bench@example.com', role: 'reviewer' as const, orgId: org.org_id, orgName: 'Bench', environment: 'test' as const, csrf: 'x', path: '/dashboard/cases', stylesheet: '/s.css', scripts: [], acceptedEnvironments: ['test', 'live'] as const, unreadNotifications: null };
  for (let i = 0; i < QUEUE_SAMPLES; i++) {
    let start = performance.now();
    await resolveOperatorSession(ctx, { token });
    sessionTimes.push(performance.now() - start);
    start = performance.now();
    await queueCategoryCounts({ ...ctx, doneCounts }, { orgId: org.org_id, environment: 'test' });
    countTimes.push(performance.now() - start);
    start = performance.now();
    renderDocument(queueView(viewer, queuePage.value, parseQueueParams({}), new Date()));
    renderTimes.push(performance.now() - start);
  }
  console.log(`  ${'  the session lookup'.padEnd(24)} ${fmt(sessionTimes)}`);
  console.log(`  ${'  the tab counts'.padEnd(24)} ${fmt(countTimes)}`);
  console.log(`  ${'  rendering the HTML'.padEnd(24)} ${fmt(renderTimes)}`);
  if (process.env.BENCH_EXPLAIN) await explainQueue(org.org_id);
  }
  if (part !== 'queue' && !EMBEDDED) {

  // ── 2. case page with a 20-page PDF ──────────────────────────────────────────────────────
  const jobs = caseJobsTask(CASE_ENGINE_HANDLERS);
  const processCase = async (i: number) => {
    const processed = await app.inject({
      method: 'POST',
      url: '/api/v1/process',
      headers: { authorization: `Bearer ${key.value.key}`, 'idempotency-key': `bench-${Date.now()}-${i}` },
      payload: { document_url: docs.url('/stub.pdf'), case_type_id: 'income_verification', document_kind: 'pay_stub', filename: 'stub.pdf', structured_inputs: { full_name: 'John Smith' } },
    });
    const { case_id: caseId, document_id: docId } = processed.json() as { case_id: string; document_id: string };
    for (let j = 0; j < 20; j++) if ((await jobs.run(ctx)) === 0) break;
    return { caseId, docId };
  };
  const firstView = async (caseId: string) => {
    const start = performance.now();
    const page = await get(`/dashboard/cases/${caseId}`);
    const src = /<image href="([^"]+)"/.exec(page.res.body)?.[1];
    if (!src) throw new Error('the case page shows no page image');
    await get(src);
    return { total: performance.now() - start, pageMs: page.ms, src };
  };
  // As an operator meets a case: the document job has drawn its evidence pages (in an extraction
  // child) before the case reached the queue, and nobody has opened it yet.
  const ahead: number[] = [];
  let last = { caseId: '', docId: '' };
  for (let i = 0; i < IMAGE_SAMPLES + 1; i++) {
    last = await processCase(i);
    const view = await firstView(last.caseId);
    if (i > 0) ahead.push(view.total);
  }
  // The fallback: a page nobody drew yet (older documents, a page outside the evidence) is drawn
  // by the first view, on the server's own thread.
  const cold: number[] = [];
  const warm: number[] = [];
  const pageOnly: number[] = [];
  for (let i = 0; i < IMAGE_SAMPLES + 1; i++) {
    await ctx.db.deleteFrom('document_page_images').where('doc_id', '=', last.docId).execute();
    const view = await firstView(last.caseId);
    if (i > 0) {
      cold.push(view.total);
      pageOnly.push(view.pageMs);
    }
    const warmStart = performance.now();
    await get(`/dashboard/cases/${last.caseId}`);
    await get(view.src);
    if (i > 0) warm.push(performance.now() - warmStart);
  }
  console.log(`\nCase page with a 20-page PDF, first page image ready (case page + image, ${IMAGE_SAMPLES} runs):`);
  console.log(`  ${'drawn by the job'.padEnd(24)} ${fmt(ahead)}   goal ≤ 300 ms: ${percentile(ahead, 95) <= 300 ? 'met' : 'NOT met'}`);
  console.log(`  ${'not drawn yet'.padEnd(24)} ${fmt(cold)}`);
  console.log(`  ${'  of which the page'.padEnd(24)} ${fmt(pageOnly)}`);
  console.log(`  ${'cached'.padEnd(24)} ${fmt(warm)}`);
  }
} finally {
  await app.close();
  await runtime.close().catch(() => {});
  await docs.close();
  await schema.drop();
}
