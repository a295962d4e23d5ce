/**
 * Document store benchmark: `node bench/document-store.ts` (issue 30). Embedded database in a
 * temporary DATA_DIR, once with the database store and once with an S3 store (s3rver on loopback,
 * in a child process, writing to a temporary folder).
 *
 * 1. Upload to facts: an applicant uploads a 5 MB PDF (a pay stub page plus an incompressible
 *    attachment) through the upload route; the case job reads it from the store, extracts the
 *    page and the facts. Timed from the request to the committed `document.processed`.
 * 2. Memory: ten 20 MB uploads at once over a real socket (the server in this process, the ten
 *    bodies one shared buffer), sampling this process's RSS every 10 ms; reported as the peak
 *    and the rise over the idle process. The rise includes the client's side of the sockets.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { pino } from 'pino';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { loadConfig } from '../src/config.ts';
import { putCaseType } from '../src/domain/case-types/case-types.ts';
import { createApiKey } from '../src/domain/keys/keys.ts';
import { createOrg } from '../src/domain/orgs/orgs.ts';
import { buildServer } from '../src/http/server.ts';
import { caseJobsTask, CASE_ENGINE_HANDLERS, CASE_ENGINE_OPTIONS } from '../src/jobs/case-jobs.ts';
import { openRuntime } from '../src/runtime.ts';
import incomeVerification from '../examples/case-types/income_verification.json' with { type: 'json' };

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5);
const MB = 1024 * 1024;

async function payStubPdf(totalBytes: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  const lines = ['ACME MANUFACTURING LTD', 'Employee name: Jane Doe', 'Pay date: 2026-06-01', 'Gross pay: $4,321.09', 'Net pay: $3,210.98'];
  lines.forEach((text, i) => page.drawText(text, { x: 72, y: 740 - i * 20, size: 12, font }));
  const bare = await doc.save();
  await doc.attach(randomBytes(Math.max(0, totalBytes - bare.byteLength - 4096)), 'scan.bin', { mimeType: 'application/octet-stream' });
  return Buffer.from(await doc.save());
}

function multipart(fields: Record<string, string>, file: Buffer): { head: Buffer; tail: Buffer; contentType: string } {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    Object.entries(fields).map(([k, v]) => `--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') +
      `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="stub.pdf"\r\ncontent-type: application/pdf\r\n\r\n`,
  );
  return { head, tail: Buffer.from(`\r\n--${boundary}--\r\n`), contentType: `multipart/form-data; boundary=${boundary}` };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** s3rver in a child process, so the RSS figures are the service's alone, as with a real bucket elsewhere. */
async function startS3(dir: string): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  const script = `const S3rver = require('s3rver'); new S3rver({ port: 0, address: '127.0.0.1', directory: ${JSON.stringify(dir)}, silent: true }).run().then(({ port }) => console.log(port));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'], cwd: fileURLToPath(new URL('..', import.meta.url)) });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  await client.send(new CreateBucketCommand({ Bucket: 'dossier-bench' }));
  client.destroy();
  return {
    env: { DOCUMENT_STORE: 's3://dossier-bench/bench', S3_ENDPOINT: endpoint, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' },
    close: async () => {
      child.kill();
    },
  };
}

async function benchStore(store: 'database' | 's3', pdf5: Buffer, pdf20: Buffer): Promise<string[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dossier-bench-docs-'));
  const s3Dir = mkdtempSync(join(tmpdir(), 'dossier-bench-s3-'));
  const s3 = store === 's3' ? await startS3(s3Dir) : undefined;
  const config = loadConfig({ DATA_DIR: dataDir, DOSSIER_SECRET: 'bench-secret-bench-secret-bench-secret-01', LOG_LEVEL: 'warn', ...(s3?.env ?? {}) });
  const runtime = await openRuntime(config, { logger: pino({ level: 'warn' }) });
  const { ctx } = runtime;
  const app = await buildServer(ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const jobs = caseJobsTask(CASE_ENGINE_HANDLERS, CASE_ENGINE_OPTIONS);
  const out: string[] = [];
  try {
    const org = await createOrg(ctx, { name: 'Bench Lending', acceptLegal: true });
    if (!(await putCaseType(ctx, { orgId: org.org_id, environment: 'test', definition: incomeVerification })).ok) throw new Error('case type');
    const key = await createApiKey(ctx, { orgId: org.org_id, environment: 'test', scopes: ['*'] });
    if (!key.ok) throw new Error(key.message);
    let n = 0;
    /** A fresh intake: its upload URL, cookie and CSRF token. */
    const intake = async () => {
      const created = await app.inject({
        method: 'POST',
        url: '/api/v1/sessions',
        headers: { authorization: `Bearer ${key.value.key}`, 'idempotency-key': `bench-${store}-${n++}`, 'content-type': 'application/json' },
        payload: { case_type_id: 'income_verification' },
      });
      const signed = new URL((created.json() as { signed_url: string }).signed_url);
      const first = await app.inject({ method: 'GET', url: `${signed.pathname}${signed.search}` });
      const cookie = first.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
      const page = `${signed.pathname}/upload/documents`;
      const html = (await app.inject({ method: 'GET', url: page, headers: { cookie } })).body;
      const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
      if (!csrf) throw new Error('no CSRF token on the upload page');
      return { url: `${origin}${page}/files`, cookie, csrf, caseId: (created.json() as { case_id: string }).case_id };
    };
    const upload = async (s: Awaited<ReturnType<typeof intake>>, file: Buffer) => {
      const body = multipart({ _csrf: s.csrf, kind: 'pay_stub' }, file);
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(body.head);
          for (let i = 0; i < file.length; i += MB) c.enqueue(file.subarray(i, i + MB));
          c.enqueue(body.tail);
          c.close();
        },
      });
      const res = await fetch(s.url, { method: 'POST', body: stream, duplex: 'half', headers: { 'content-type': body.contentType, cookie: s.cookie, accept: 'application/json' } } as RequestInit);
      if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { doc_id: string }).doc_id;
    };

    const latencies: number[] = [];
    for (let i = 0; i < SAMPLES + 1; i++) {
      const s = await intake();
      const started = performance.now();
      const docId = await upload(s, pdf5);
      while ((await jobs.run(ctx)) !== 0);
      const doc = await ctx.db.selectFrom('documents').select(['status']).where('doc_id', '=', docId).executeTakeFirstOrThrow();
      if (doc.status !== 'processed') throw new Error(`document ${docId} is ${doc.status}`);
      if (i > 0) latencies.push(performance.now() - started); // the first warms pdfjs and the extraction child
    }
    out.push(`${store.padEnd(8)} upload to facts, 5 MB PDF: median ${median(latencies).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms (${SAMPLES} runs)`);

    const intakes = await Promise.all(Array.from({ length: 10 }, () => intake()));
    globalThis.gc?.();
    const idle = process.memoryUsage().rss;
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const started = performance.now();
    await Promise.all(intakes.map((s) => upload(s, pdf20)));
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    out.push(
      `${store.padEnd(8)} 10 × 20 MB uploads at once: ${(performance.now() - started).toFixed(0)} ms, RSS peak ${(peak / MB).toFixed(0)} MB (idle ${(idle / MB).toFixed(0)} MB, rise ${((peak - idle) / MB).toFixed(0)} MB)`,
    );
  } finally {
    await app.close();
    await runtime.close();
    await s3?.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(s3Dir, { recursive: true, force: true });
  }
  return out;
}

const pdf5 = await payStubPdf(5 * MB);
const pdf20 = await payStubPdf(20 * MB - 64 * 1024);
console.log(`document store: upload to facts (5 MB PDF) and RSS under ten 20 MB uploads, per store`);
for (const store of ['database', 's3'] as const) for (const line of await benchStore(store, pdf5, pdf20)) console.log(line);
