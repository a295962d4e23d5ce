/**
 * Applicant app benchmark: `node bench/applicant.ts` (embedded database in a temporary DATA_DIR).
 *
 * For each page state of the hosted flow: server time (Fastify inject, so no socket or browser in
 * the figure) over many requests, and the page's weight over the wire: the HTML as brotli
 * compresses it plus the stylesheet and every script module it loads, compressed as served.
 * Goals (issue 10): p95 ≤ 30 ms per page; ≤ 60 KB per page, HTML + CSS + JS together.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { pino } from 'pino';
import { loadConfig } from '../src/config.ts';
import { createOrg } from '../src/domain/orgs/orgs.ts';
import { putCaseType } from '../src/domain/case-types/case-types.ts';
import { createApiKey } from '../src/domain/keys/keys.ts';
import { buildServer } from '../src/http/server.ts';
import { openRuntime } from '../src/runtime.ts';
import { AssetRegistry } from '../src/web/assets.ts';
import incomeVerification from '../examples/case-types/income_verification.json' with { type: 'json' };
import tenancyApplication from '../examples/case-types/tenancy_application.json' with { type: 'json' };

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const dataDir = mkdtempSync(join(tmpdir(), 'dossier-bench-applicant-'));
const config = loadConfig({ DATA_DIR: dataDir, DOSSIER_SECRET: 'bench-secret-bench-secret-bench-secret-01', LOG_LEVEL: 'warn' });
const runtime = await openRuntime(config, { logger: pino({ level: 'warn' }) });
const { ctx } = runtime;
const app = await buildServer(ctx);
await app.ready();
const assets = new AssetRegistry();

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

try {
  const org = await createOrg(ctx, { name: 'Bench Lending', acceptLegal: true });
  for (const definition of [incomeVerification, tenancyApplication]) {
    const put = await putCaseType(ctx, { orgId: org.org_id, environment: 'test', definition });
    if (!put.ok) throw new Error('case type');
  }
  const key = await createApiKey(ctx, { orgId: org.org_id, environment: 'test', scopes: ['*'] });
  if (!key.ok) throw new Error(key.message);
  const created = await app.inject({
    method: 'POST',
    url: '/api/v1/sessions',
    headers: { authorization: `Bearer ${key.value.key}`, 'idempotency-key': 'bench-1', 'content-type': 'application/json' },
    payload: { case_type_id: 'income_verification', prefill: { full_name: 'Jane Doe' } },
  });
  const signed = new URL((created.json() as { signed_url: string }).signed_url);
  const first = await app.inject({ method: 'GET', url: `${signed.pathname}${signed.search}` });
  const cookie = first.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const base = signed.pathname;
  // The form with every other field type (address, radios, money with a prefix, phone, checkbox).
  const tenancy = await app.inject({
    method: 'POST',
    url: '/api/v1/sessions',
    headers: { authorization: `Bearer ${key.value.key}`, 'idempotency-key': 'bench-2', 'content-type': 'application/json' },
    payload: { case_type_id: 'tenancy_application' },
  });
  const tenancySigned = new URL((tenancy.json() as { signed_url: string }).signed_url);
  const tenancyFirst = await app.inject({ method: 'GET', url: `${tenancySigned.pathname}${tenancySigned.search}` });
  const tenancyCookie = tenancyFirst.cookies.map((c) => `${c.name}=${c.value}`).join('; ');

  const pages: Array<[string, string, string?]> = [
    ['form step', `${base}/form/applicant`],
    ['form, all types', `${tenancySigned.pathname}/form/about_you`, tenancyCookie],
    ['upload step', `${base}/upload/documents`],
    ['check answers', `${base}/check`],
    ['link (303 resume)', base],
  ];
  console.log(`applicant pages, ${SAMPLES} requests each (server time through inject; weight = HTML br + CSS + JS br)`);
  let worst = 0;
  for (const [name, url, pageCookie = cookie] of pages) {
    const times: number[] = [];
    let res = await app.inject({ method: 'GET', url, headers: { cookie: pageCookie } });
    // Warm up first (JIT, statement caches), so the figures are the steady state.
    for (let i = 0; i < 30; i++) await app.inject({ method: 'GET', url, headers: { cookie: pageCookie } });
    for (let i = 0; i < SAMPLES; i++) {
      const t0 = performance.now();
      res = await app.inject({ method: 'GET', url, headers: { cookie: pageCookie } });
      times.push(performance.now() - t0);
    }
    const html = res.statusCode === 200 ? res.body : '';
    const htmlBytes = html ? brotliCompressSync(Buffer.from(html)).length : 0;
    const linked = [...html.matchAll(/(?:href|src)="[^"]*\/assets\/([^"?]+)\?v=/g)].map((m) => m[1]!);
    // app.js imports its modules: count every script of the face, as a browser fetches them all.
    const scripts = linked.some((n) => n.endsWith('.js')) ? ['js/app.js', 'js/common.js', 'js/upload.js', 'js/status.js'] : [];
    const assetBytes = [...new Set([...linked.filter((n) => n.endsWith('.css')), ...scripts])].reduce((sum, n) => sum + assets.compressedSize(n), 0);
    const p95 = percentile(times, 95);
    worst = Math.max(worst, p95);
    console.log(
      `${name.padEnd(20)} ${String(res.statusCode).padEnd(4)} p50 ${percentile(times, 50).toFixed(1).padStart(5)} ms  p95 ${p95.toFixed(1).padStart(5)} ms` +
        (html ? `  weight ${((htmlBytes + assetBytes) / 1024).toFixed(1).padStart(5)} KB (HTML ${(htmlBytes / 1024).toFixed(1)} KB + assets ${(assetBytes / 1024).toFixed(1)} KB)` : ''),
    );
  }
  console.log(`worst p95 ${worst.toFixed(1)} ms (goal ≤ 30 ms)`);
} finally {
  await app.close();
  await runtime.close();
  rmSync(dataDir, { recursive: true, force: true });
}
