import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliInProcess } from '../support/processes.ts';

describe('dossier operator create and the demo sign-in', () => {
  let dataDir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'dossier-operator-cli-'));
    env = { DATA_DIR: dataDir, DOSSIER_SECRET: 's'.repeat(40) };
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates operators, refuses duplicates and weak passwords, and never prints a password hash', async () => {
    const org = (await runCliInProcess(['org', 'create', '--name', 'Acme', '--json'], env)).json();
    // The first operator as a `dossier` process, its stdout as a person sees it; the rest in this process.
    const created = await runCli(['operator', 'create', '--org', String(org.org_id), '--email', 'Ana@Example.com', '--password', 'a long enough password', '--role', 'admin', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.json()).toMatchObject({ operator_id: expect.stringMatching(/^op_/), email: 'Ana@Example.com', role: 'admin', disabled: false, dashboard_url: expect.stringContaining('/dashboard/login') });
    expect(created.stdout).not.toMatch(/argon2|password_hash/);

    const reviewer = (await runCliInProcess(['operator', 'create', '--org', String(org.org_id), '--email', 'rev@example.com', '--password', 'another long password', '--json'], env)).json();
    expect(reviewer.role).toBe('reviewer');

    const duplicate = await runCliInProcess(['operator', 'create', '--org', String(org.org_id), '--email', 'ana@example.com', '--password', 'a long enough password', '--json'], env);
    expect(duplicate.code).toBe(1);
    expect(duplicate.json()).toMatchObject({ error: { code: 'invalid_request', message: expect.stringContaining('already exists') } });

    const weak = await runCliInProcess(['operator', 'create', '--org', String(org.org_id), '--email', 'weak@example.com', '--password', 'short', '--json'], env);
    expect(weak.code).toBe(1);
    expect(weak.json()).toMatchObject({ error: { message: expect.stringContaining('at least 12 characters') } });

    const badRole = await runCliInProcess(['operator', 'create', '--org', String(org.org_id), '--email', 'x@example.com', '--password', 'a long enough password', '--role', 'owner', '--json'], env);
    expect(badRole.code).toBe(2);
    expect(JSON.stringify(badRole.json())).toContain('--role must be admin or reviewer');

    const missingOrg = await runCliInProcess(['operator', 'create', '--org', 'org_nope', '--email', 'y@example.com', '--password', 'a long enough password', '--json'], env);
    expect(missingOrg.json()).toMatchObject({ error: { code: 'not_found' } });
  }, 120_000);

  it('dossier demo prints a dashboard sign-in for an admin operator, the same each time', async () => {
    const first = (await runCliInProcess(['demo', '--json'], env)).json() as { dashboard: { url: string; email: string; password: string; case_url: string } };
    expect(first.dashboard).toEqual({
      url: expect.stringMatching(/\/dashboard\/login$/),
      email: 'demo@example.com',
      password: expect.stringMatching(/^[0-9A-Za-z]{20}$/),
      // The demo case to review, made once per workspace.
      case_url: expect.stringMatching(/\/dashboard\/cases\/case_[0-9A-Za-z]+$/),
    });
    const again = (await runCliInProcess(['demo', '--json'], env)).json() as typeof first;
    expect(again.dashboard.password).toBe(first.dashboard.password);
    expect(again.dashboard.case_url).toBe(first.dashboard.case_url);
  }, 60_000);
});
