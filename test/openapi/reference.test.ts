import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/webhooks/event-types.ts';
import { createTestApp, type TestApp } from '../support/harness.ts';

/**
 * The reference people copy from (issue 25 §5): every response described, every operation with a
 * curl and a TypeScript sample made from the document's own examples, and the TypeScript samples
 * compiled against `@dossier/client`, so a sample that calls a method wrongly fails here.
 */

type Operation = {
  operationId: string;
  requestBody?: unknown;
  responses: Record<string, { description?: string }>;
  'x-codeSamples'?: { lang: string; label: string; source: string }[];
};

const root = join(import.meta.dirname, '../..');
let t: TestApp;
let doc: { paths: Record<string, Record<string, Operation>>; webhooks: Record<string, { post: { requestBody: { content: Record<string, { example: { event_type: string; data: unknown } }> } } }>; info: { description: string } };
let operations: Operation[];

beforeAll(async () => {
  t = await createTestApp('embedded');
  doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
});
afterAll(async () => t?.close());

it('describes every response in words, never "Default Response"', () => {
  const missing = operations.flatMap((op) =>
    Object.entries(op.responses)
      .filter(([, r]) => !r.description || r.description === 'Default Response')
      .map(([status]) => `${op.operationId} ${status}`),
  );
  expect(operations.length).toBeGreaterThan(20);
  expect(missing).toEqual([]);
});

it('gives every operation a curl and a TypeScript sample, with the body example the document holds', () => {
  const lacking = operations.filter((op) => {
    const langs = (op['x-codeSamples'] ?? []).map((s) => s.lang);
    return !langs.includes('Shell') || !langs.includes('TypeScript');
  });
  expect(lacking.map((op) => op.operationId)).toEqual([]);
  for (const op of operations.filter((o) => o.requestBody !== undefined)) {
    const curl = op['x-codeSamples']!.find((s) => s.lang === 'Shell')!.source;
    expect(curl, `${op.operationId} has no body example`).toContain(" -d '");
    const body = JSON.parse(curl.slice(curl.indexOf(" -d '") + 5, curl.lastIndexOf("'")).replaceAll("'\\''", "'"));
    expect(body, op.operationId).toBeTypeOf('object');
  }
  const create = doc.paths['/api/v1/sessions']!.post!['x-codeSamples']!;
  expect(create.find((s) => s.lang === 'Shell')!.source).toContain('Idempotency-Key');
  expect(create.find((s) => s.lang === 'TypeScript')!.source).toContain('dossier.sessions.create({');
});

it('curl samples run as printed against this deployment', async () => {
  // A GET sample, with the key in the environment as the quick start says, answers 200 here.
  const ws = await t.workspace();
  const listen = await t.app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const sample = doc.paths['/api/v1/webhooks/deliveries']!.get!['x-codeSamples']!.find((s) => s.lang === 'Shell')!.source;
    const url = new URL(/"(http[^"]+)"/.exec(sample)![1]!);
    const res = await fetch(`${listen}${url.pathname}${url.search}`, { headers: { authorization: `Bearer ${ws.key}` } });
    expect(res.status).toBe(200);
    expect(sample).toContain('Authorization: Bearer $DOSSIER_API_KEY');
  } finally {
    await t.app.close();
  }
});

it('compiles every TypeScript sample against @dossier/client', async () => {
  const dir = join(root, '.tmp', `reference-samples-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    // Each sample is a module of its own (top-level await, its own import), as a reader pastes it.
    const files = operations.map((op) => {
      const file = `${op.operationId}.ts`;
      writeFileSync(join(dir, file), `${op['x-codeSamples']!.find((s) => s.lang === 'TypeScript')!.source}\nexport {};\n`);
      return file;
    });
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../../tsconfig.json', compilerOptions: { lib: ['es2024', 'dom'] }, include: files }));
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const result = await promisify(execFile)(process.execPath, [tsc, '--noEmit', '-p', join(dir, 'tsconfig.json')], { cwd: root }).then(
      () => ({ code: 0, out: '' }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, out: `${err.stdout}${err.stderr}` }),
    );
    expect(result.out).toBe('');
    expect(result.code).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

it('lists every webhook event with its envelope and an example data', () => {
  expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
  for (const [eventType, item] of Object.entries(doc.webhooks)) {
    const example = item.post.requestBody.content['application/json']!.example;
    expect(example.event_type).toBe(eventType);
    expect(example.data).toBeTypeOf('object');
  }
});

it('opens with a quick start: a key, a session, dossier listen, an acknowledgement', () => {
  for (const step of ['Quick start', 'sk_test_', '/api/v1/sessions', 'dossier -- listen --forward-to', '/ack', '(/dashboard)']) {
    expect(doc.info.description).toContain(step);
  }
});

it('lists every sample document outcome with its events, in the reference and in the README (issue 25 §3)', async () => {
  const { SAMPLE_OUTCOMES } = await import('../../src/domain/samples/sample-url.ts');
  const { readFileSync } = await import('node:fs');
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const description = doc.info.description;
  expect(description).toContain('## Sample documents (test mode)');
  expect(description).toContain('dossier-test:<case_type_id>/<document_kind or upload node_id>/<outcome>');
  for (const outcome of SAMPLE_OUTCOMES) {
    expect(description, outcome).toMatch(new RegExp(`^\\| \`${outcome}\` \\|.*document\\.`, 'm'));
    expect(readme, outcome).toMatch(new RegExp(`^\\| \`${outcome}\` \\|.*document\\.`, 'm'));
  }
});
