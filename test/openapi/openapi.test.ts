import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/harness.ts';

const run = promisify(execFile);
const REDOCLY = join(import.meta.dirname, '../../node_modules/@redocly/cli/bin/cli.js');

let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await createTestApp('embedded');
  dir = mkdtempSync(join(tmpdir(), 'dossier-openapi-'));
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

it('is served without a key as OpenAPI 3.1 and documents every public route', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  const doc = res.json();
  expect(doc.openapi).toBe('3.1.0');
  const operations = Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
  );
  expect(operations).toEqual(
    expect.arrayContaining([
      'POST /api/v1/sessions createSession',
      'GET /api/v1/cases/{case_id} getCase',
      'GET /api/v1/cases/{case_id}/events listCaseEvents',
      'GET /api/v1/cases/{case_id}/package getCasePackage',
    ]),
  );
  expect(JSON.stringify(doc)).not.toContain('_probe');
  expect(doc.components.schemas.Error).toBeDefined();
});

it('lints clean with @redocly/cli', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  const file = join(dir, 'openapi.json');
  writeFileSync(file, res.body);
  const result = await run(process.execPath, [REDOCLY, 'lint', file, '--format', 'stylish'], { cwd: dir }).catch((err: { stdout: string; stderr: string; code: number }) => err);
  const output = `${result.stdout}\n${result.stderr}`;
  expect('code' in result ? result.code : 0, output).toBe(0);
  expect(output).not.toMatch(/\berror\b.*\[/i);
}, 120_000);

it('documents examples that satisfy their own schemas', async () => {
  const { caseRecordSchema, factSchema, documentSchema, queueRowSchema } = await import('../../src/http/schemas/case-record.ts');
  const examples = await import('../../src/http/schemas/examples.ts');
  expect(caseRecordSchema.safeParse(examples.exampleCaseRecord).success).toBe(true);
  expect(factSchema.safeParse(examples.exampleFact).success).toBe(true);
  expect(documentSchema.safeParse(examples.exampleDocument).success).toBe(true);
  expect(queueRowSchema.safeParse(examples.exampleQueueRow).success).toBe(true);
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  const doc = res.json();
  for (const name of ['CaseRecord', 'CasePackage', 'QueuePage', 'Session', 'CaseEventPage', 'Error']) {
    expect(doc.components.schemas[name]?.example ?? doc.components.schemas[name]?.examples, name).toBeDefined();
  }
});
