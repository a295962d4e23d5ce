import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { withExampleCaseTypes } from '../support/fixtures.ts';
import { createTestApp } from '../support/harness.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const PACKAGE = join(ROOT, 'packages/client');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

let dir: string;
let pkg: string;
let dist: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dossier-client-build-'));
  // The package as npm would pack it: package.json, README and the build (its `files`).
  pkg = join(dir, 'pkg');
  dist = join(pkg, 'dist');
  mkdirSync(pkg);
  await run(process.execPath, [join(PACKAGE, 'scripts/build.ts'), dist], { cwd: ROOT });
  copyFileSync(join(PACKAGE, 'package.json'), join(pkg, 'package.json'));
  copyFileSync(join(PACKAGE, 'README.md'), join(pkg, 'README.md'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const builtFiles = () => readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js') || f.endsWith('.d.ts'));
/** Every module specifier of a file: static imports and re-exports, and dynamic imports. */
const specifiers = (text: string) => [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);

it('emits ESM with a declaration beside every module, and the package points at them', () => {
  const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
  expect(manifest).toMatchObject({ name: '@dossier/client', type: 'module', files: ['dist', 'README.md'], exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } } });
  expect(manifest.dependencies ?? {}).toEqual({});
  const files = builtFiles();
  const modules = files.filter((f) => f.endsWith('.js'));
  expect(modules).toContain('index.js');
  for (const module of modules) expect(files, module).toContain(module.replace(/\.js$/, '.d.ts'));
  const index = readFileSync(join(dist, 'index.js'), 'utf8');
  expect(index).toMatch(/^export \{/m);
  expect(index).not.toMatch(/\brequire\(|module\.exports/);
});

it('imports nothing but its own modules: no node: built-ins, no packages, no .ts specifiers', () => {
  const seen = new Set<string>();
  for (const file of builtFiles()) {
    for (const specifier of specifiers(readFileSync(join(dist, file), 'utf8'))) {
      seen.add(specifier);
      expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\.?\/.+\.js$/);
    }
  }
  expect(seen).toContain('./verify-webhook.js');
});

it('loads, calls the API and verifies a delivery in a runtime that refuses every node: module', async () => {
  const hooks = join(dir, 'refuse-built-ins.mjs');
  writeFileSync(
    hooks,
    `import { builtinModules, registerHooks } from 'node:module';
const builtins = new Set(builtinModules);
registerHooks({ resolve(specifier, context, next) {
  if (specifier.startsWith('node:') || builtins.has(specifier)) throw new Error('refused built-in ' + specifier);
  return next(specifier, context);
} });`,
  );
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const body = JSON.stringify({ event_id: 'evt_1', delivery_id: 'dlv_1', event_type: 'v1.case.completed', case_id: 'case_1', data: { case_status: 'approved' } });
  const t = Math.floor(Date.now() / 1000);
  const signature = `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
  const script = `
const { Dossier, verifyWebhook } = await import(${JSON.stringify(join(dist, 'index.js'))});
const event = await verifyWebhook(process.env.BODY, { 'x-service-signature': process.env.SIGNATURE }, process.env.SECRET);
const dossier = new Dossier({ apiKey: 'sk_test_x', baseUrl: 'https://dossier.invalid', fetch: async (url) => new Response(JSON.stringify({ case_id: new URL(url).pathname.split('/').at(-1) }), { status: 200, headers: { 'x-request-id': 'req_1' } }) });
const record = await dossier.cases.retrieve('case_1');
let refused = 'no';
try { await import('node:fs'); } catch { refused = 'yes'; }
console.log(JSON.stringify({ type: event.event_type, status: event.data.case_status, case: record.case_id, request: record.lastResponse.requestId, refused }));`;
  const { stdout } = await run(process.execPath, ['--import', hooks, '--input-type=module', '-e', script], { env: { PATH: process.env.PATH, BODY: body, SIGNATURE: signature, SECRET: secret } });
  expect(JSON.parse(stdout)).toEqual({ type: 'v1.case.completed', status: 'approved', case: 'case_1', request: 'req_1', refused: 'yes' });
});

it('lets an integrator install it, type-check the README quick start, and run it against the service', async () => {
  const app = join(dir, 'app');
  mkdirSync(join(app, 'node_modules/@dossier'), { recursive: true });
  symlinkSync(pkg, join(app, 'node_modules/@dossier/client'), 'dir');
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'integrator', private: true, type: 'module' }));
  const readme = readFileSync(join(PACKAGE, 'README.md'), 'utf8');
  const quickStart = /## Quick start\n\n```ts\n([\s\S]*?)```/.exec(readme)![1]!;
  expect(quickStart.trim().split('\n').filter((line) => line.trim() !== '').length).toBeLessThanOrEqual(10);
  writeFileSync(join(app, 'quickstart.ts'), quickStart);
  // An ordinary strict project: no allowImportingTsExtensions, declarations checked (skipLibCheck off).
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: false, types: ['node'], typeRoots: [join(ROOT, 'node_modules/@types')] },
      include: ['quickstart.ts'],
    }),
  );
  const typecheck = await run(process.execPath, [TSC, '-p', join(app, 'tsconfig.json')], { cwd: app }).then(
    () => '',
    (error: { stdout: string; stderr: string }) => `${error.stdout}${error.stderr}`,
  );
  expect(typecheck).toBe('');

  const t = await createTestApp('embedded');
  try {
    const ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const { stdout } = await run(process.execPath, ['quickstart.ts'], {
      cwd: app,
      env: { PATH: process.env.PATH, DOSSIER_API_KEY: ws.key, DOSSIER_BASE_URL: `http://127.0.0.1:${port}`, DOSSIER_WEBHOOK_SECRET: 'whsec_unused' },
    });
    expect(stdout).toMatch(/^Send the applicant to http:\/\/\S+\/s\/[0-9a-f-]{36}\?token=\S+\n$/);
    const created = await t.ctx.db.selectFrom('cases').select(['case_type_id']).where('external_case_id', '=', 'loan-1').where('org_id', '=', ws.orgId).execute();
    expect(created).toEqual([{ case_type_id: 'income_verification' }]);
  } finally {
    await t.close();
  }
}, 120_000);
