import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshDatabase, type TestTarget } from '../support/harness.ts';
import { postgresUrlForSchema, runCli, startProcess, type RunningServer } from '../support/processes.ts';

const EXAMPLE = join(import.meta.dirname, '../../examples/case-types/income_verification.json');

describe('dossier CLI on the embedded database', () => {
  let dataDir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'dossier-cli-'));
    env = { DATA_DIR: dataDir, DOSSIER_SECRET: 's'.repeat(40) };
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('runs every admin command with --json printing exactly one JSON object', async () => {
    const migrated = await runCli(['migrate', '--json'], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.json()).toEqual({ applied: expect.arrayContaining(['0001_foundation', '0002_cases']), already_applied: [] });
    const again = (await runCli(['migrate', '--json'], env)).json();
    expect(again.applied).toEqual([]);

    const org = (await runCli(['org', 'create', '--name', 'Acme Lending', '--json'], env)).json();
    expect(org).toMatchObject({ org_id: expect.stringMatching(/^org_/), name: 'Acme Lending', billing_status: 'inactive', legal_terms_version: null });

    const updated = await runCli(['org', 'update', String(org.org_id), '--billing', 'active', '--accept-legal', '--live-usage-cap', '100', '--json'], env);
    expect(updated.code).toBe(0);
    expect(updated.json()).toMatchObject({ billing_status: 'active', live_usage_cap: 100, legal_terms_current: true });

    const key = await runCli(
      ['key', 'create', '--org', String(org.org_id), '--env', 'live', '--scopes', 'cases:read,sessions:write', '--name', 'backend', '--expires-in', '30d', '--rate-limit', '120', '--json'],
      env,
    );
    expect(key.code, key.stderr).toBe(0);
    const k = key.json();
    expect(k).toMatchObject({ key_id: expect.stringMatching(/^key_/), environment: 'live', scopes: ['cases:read', 'sessions:write'], rate_limit_per_minute: 120, name: 'backend' });
    expect(String(k.key)).toMatch(/^sk_live_[0-9A-Za-z]{43}$/);
    expect(Date.parse(String(k.expires_at)) - Date.now()).toBeGreaterThan(29 * 86_400_000);

    const put = await runCli(['case-type', 'put', '--org', String(org.org_id), '--file', EXAMPLE, '--json'], env);
    expect(put.code, put.stdout + put.stderr).toBe(0);
    expect(put.json()).toMatchObject({ case_type_id: 'income_verification', results: [{ environment: 'test', workflow_version: 'v1' }, { environment: 'live', workflow_version: 'v1' }] });
    const listed = (await runCli(['case-type', 'list', '--org', String(org.org_id), '--env', 'test', '--json'], env)).json();
    expect(listed.case_types).toEqual([expect.objectContaining({ case_type_id: 'income_verification', workflow_version: 'v1' })]);
    const shown = (await runCli(['case-type', 'show', 'income_verification', '--org', String(org.org_id), '--env', 'live', '--json'], env)).json();
    expect(shown).toMatchObject({ case_type_id: 'income_verification', environment: 'live' });

    const revoked = await runCli(['key', 'revoke', String(k.key_id), '--json'], env);
    expect(revoked.json()).toMatchObject({ key_id: k.key_id, revoked_at: expect.any(String) });

    const demo1 = (await runCli(['demo', '--json'], env)).json();
    const demo2 = (await runCli(['demo', '--json'], env)).json();
    expect(demo1).toMatchObject({ org_id: expect.stringMatching(/^org_/), key: expect.stringMatching(/^sk_test_/), case_type_ids: ['income_verification', 'address_proof', 'tenancy_application'] });
    expect(demo2.org_id).toBe(demo1.org_id);
    expect(demo2.key).toBe(demo1.key);
    expect(demo2.created).toBe(false);
    // Fourteen CLI processes, each opening the embedded database: minutes on a loaded 2-core machine.
  }, 360_000);

  it('reports problems as one JSON error object with a non-zero exit', async () => {
    const cases: [string[], number, string][] = [
      [['org', 'update', 'org_missing', '--billing', 'active', '--json'], 1, 'not_found'],
      [['org', 'create', '--json'], 2, 'invalid_request'],
      [['org', 'create', '--name', 'X', '--billing', 'maybe', '--json'], 2, 'invalid_request'],
      [['key', 'create', '--org', 'org_x', '--env', 'prod', '--scopes', '*', '--json'], 2, 'invalid_request'],
      [['key', 'create', '--org', 'org_x', '--env', 'test', '--scopes', 'cases:fly', '--json'], 2, 'invalid_request'],
      [['key', 'create', '--org', 'org_x', '--env', 'test', '--scopes', '*', '--expires-in', 'soon', '--json'], 2, 'invalid_request'],
      [['key', 'revoke', 'key_nope', '--json'], 1, 'not_found'],
      [['frobnicate', '--json'], 2, 'invalid_request'],
      [['org', 'create', '--name', 'X', '--bogus', '--json'], 2, 'invalid_request'],
    ];
    // A usage mistake is told before any database is opened: a fresh data directory stays empty.
    const untouched = mkdtempSync(join(tmpdir(), 'dossier-cli-usage-'));
    try {
      for (const [args, code, errorCode] of cases) {
        const run = await runCli(args, code === 2 ? { ...env, DATA_DIR: untouched } : env);
        expect(run.code, args.join(' ')).toBe(code);
        expect(run.json(), args.join(' ')).toEqual({ error: { code: errorCode, message: expect.any(String) } });
      }
      expect(readdirSync(untouched)).toEqual([]);
    } finally {
      rmSync(untouched, { recursive: true, force: true });
    }
  }, 120_000);

  it('lists every problem of an invalid case type file', async () => {
    const org = (await runCli(['org', 'create', '--name', 'Types', '--json'], env)).json();
    const file = join(dataDir, 'bad.json');
    writeFileSync(file, JSON.stringify({ case_type_id: 'Bad Id', name: '', facts: [], workflow: { workflow_id: 'w', nodes: [] } }));
    const run = await runCli(['case-type', 'put', '--org', String(org.org_id), '--file', file, '--json'], env);
    expect(run.code).toBe(1);
    const error = run.json().error as { problems: { path: string }[] };
    expect(error.problems.map((p) => p.path)).toEqual(expect.arrayContaining(['$.case_type_id', '$.name', '$.operating_mode', '$.facts', '$.workflow.nodes']));
    writeFileSync(file, '{ not json');
    const broken = await runCli(['case-type', 'put', '--org', String(org.org_id), '--file', file, '--json'], env);
    expect(broken.code).toBe(2);
    expect(String((broken.json().error as { message: string }).message)).toMatch(/not valid JSON/);
  }, 60_000);

  describe('while a server owns the database', () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startProcess(['serve'], env);
    }, 60_000);
    afterAll(async () => {
      if (server) await server.stop();
    });

    it('runs commands through the server, and the key works at once', async () => {
      expect(server.banner).toMatchObject({ status: 'listening', database: 'embedded' });
      const socket = join(dataDir, 'admin.sock');
      expect(statSync(socket).mode & 0o777).toBe(0o600);
      const org = (await runCli(['org', 'create', '--name', 'Live Co', '--json'], env)).json();
      expect(org.org_id).toMatch(/^org_/);
      const key = (await runCli(['key', 'create', '--org', String(org.org_id), '--env', 'test', '--scopes', 'cases:read', '--json'], env)).json();
      const res = await fetch(`${server.url}/api/v1/cases/case_missing`, { headers: { authorization: `Bearer ${String(key.key)}` } });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
      const revoked = await runCli(['key', 'revoke', String(key.key_id), '--json'], env);
      expect(revoked.code).toBe(0);
      // Revoked through the owning process: effective at once, not after the cache window.
      const after = await fetch(`${server.url}/api/v1/cases/case_missing`, { headers: { authorization: `Bearer ${String(key.key)}` } });
      expect(after.status).toBe(401);
      const demo = (await runCli(['demo', '--json'], env)).json();
      expect(demo.key).toMatch(/^sk_test_/);
    });

    it('prints a working demo curl line', async () => {
      const demo = (await runCli(['demo', '--json'], env)).json();
      const res = await fetch(`${server.url}/api/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${String(demo.key)}`, 'idempotency-key': `cli-${Date.now()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ case_type_id: 'income_verification' }),
      });
      expect(res.status).toBe(201);
      expect(String(demo.curl)).toContain('/api/v1/sessions');
    });

    it('prints an applicant link that opens the intake flow, the same link each time that day', async () => {
      const demo = (await runCli(['demo', '--json'], env)).json();
      const link = new URL(String(demo.applicant_link));
      expect(link.pathname).toMatch(/^\/app\/s\/[0-9a-f-]{36}$/);
      expect(link.searchParams.get('token')).toBeTruthy();
      const first = await fetch(`${server.url}${link.pathname}${link.search}`, { redirect: 'manual' });
      expect(first.status).toBe(303);
      const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0]!;
      const resume = await fetch(`${server.url}${link.pathname}`, { redirect: 'manual', headers: { cookie } });
      expect(resume.status).toBe(303);
      const page = await fetch(`${server.url}${resume.headers.get('location')}`, { headers: { cookie } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('About you');
      expect((await runCli(['demo', '--json'], env)).json().applicant_link).toBe(demo.applicant_link);
    });

    it('refuses a second server or worker on the same files', async () => {
      const second = await runCli(['worker', '--json'], env);
      expect(second.code).toBe(1);
      expect(second.json()).toMatchObject({ error: { message: expect.stringMatching(/owned by process/) } });
    });

    it('stops cleanly on SIGTERM and releases the files', async () => {
      const code = await server.stop('SIGTERM');
      expect(code).toBe(0);
      expect(existsSync(join(dataDir, 'dossier.lock'))).toBe(false);
      expect(existsSync(join(dataDir, 'admin.sock'))).toBe(false);
      const direct = await runCli(['org', 'create', '--name', 'After', '--json'], env);
      expect(direct.code).toBe(0);
    });
  });
});

describe('dossier CLI on PostgreSQL', () => {
  const url = inject('postgresUrl');
  let db: TestTarget;
  let env: Record<string, string>;
  beforeAll(async () => {
    if (!url) return;
    db = await freshDatabase('postgres');
    env = { DATABASE_URL: postgresUrlForSchema((db.target as { url: string }).url, (db.target as { schema: string }).schema), DOSSIER_SECRET: 's'.repeat(40) };
  });
  afterAll(async () => {
    await db?.dispose();
  });

  it.runIf(url)('connects directly, alongside a running server and workers', async () => {
    const server = await startProcess(['serve', '--no-worker'], env);
    const workers = await Promise.all([startProcess(['worker'], env), startProcess(['worker'], env)]);
    try {
      expect(workers[0]!.banner).toMatchObject({ status: 'running', database: 'postgres' });
      const org = await runCli(['org', 'create', '--name', 'PG Co', '--json'], env);
      expect(org.code, org.stderr).toBe(0);
      const key = (await runCli(['key', 'create', '--org', String(org.json().org_id), '--env', 'test', '--scopes', '*', '--json'], env)).json();
      const res = await fetch(`${server.url}/api/v1/cases/case_missing`, { headers: { authorization: `Bearer ${String(key.key)}` } });
      expect(res.status).toBe(404);
    } finally {
      for (const w of workers) expect(await w.stop('SIGTERM')).toBe(0);
      expect(await server.stop('SIGTERM')).toBe(0);
    }
  }, 90_000);
});
