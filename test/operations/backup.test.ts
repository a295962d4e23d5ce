import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restoreBackup } from '../../src/cli/commands/backup.ts';
import { loadConfig } from '../../src/config.ts';
import { startDocumentServer } from '../documents/document-server.ts';
import { until } from '../support/harness.ts';
import { runCli, runCliInProcess, startProcess, type RunningServer } from '../support/processes.ts';
import { startReceiver, verifySignatures, type Receiver } from '../webhooks/fixtures.ts';
import { PAY_STUB } from './fixtures.ts';


describe('dossier backup and restore (embedded database)', () => {
  const root = mkdtempSync(join(tmpdir(), 'dossier-backup-'));
  const dirA = join(root, 'a');
  const dirB = join(root, 'b');
  const file = join(root, 'dossier.backup');
  let docs: Awaited<ReturnType<typeof startDocumentServer>>;
  let receiver: Receiver;
  const running: RunningServer[] = [];

  beforeAll(async () => {
    docs = await startDocumentServer({ '/paystub.txt': { body: PAY_STUB, type: 'text/plain' } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const server of running) await server.stop();
    await docs.close();
    await receiver.close();
    rmSync(root, { recursive: true, force: true });
  });

  // No DOSSIER_SECRET: the deployment generates its own, which the backup must carry.
  const env = (dataDir: string, extra: Record<string, string> = {}) => ({ DATA_DIR: dataDir, DOSSIER_ALLOW_PRIVATE_NETWORK: 'true', ...extra });
  /** The restore command in this process (the first restore below runs as its own process, like a person's). */
  const restore = (args: string[], dataDir: string, extra: Record<string, string> = {}) => restoreBackup(args, loadConfig(env(dataDir, extra)));
  const errorOf = (outcome: { result: object }) => (outcome.result as { error: { code: string; message: string } }).error;

  it('backs up a running server, restores into a fresh DATA_DIR, and the restored deployment reads and signs with the restored secret', async () => {
    const a = await startProcess(['serve'], env(dirA));
    running.push(a);
    const demo = a.banner.demo as { org_id: string; key: string };
    const api = (server: RunningServer, method: string, path: string, body?: object, key = demo.key) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `${path}-${Math.random()}` },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });

    // Admin commands from this process reach the server through its admin socket, as a `dossier` process does.
    const added = await runCliInProcess(['endpoint', 'add', '--org', demo.org_id, '--env', 'test', '--url', receiver.url, '--events', '*', '--json'], env(dirA));
    expect(added.code, added.stderr + added.stdout).toBe(0);
    const endpoint = added.json() as { endpoint_id: string; signing_secret: string };

    const processed = await api(a, 'POST', '/api/v1/process', { document_url: docs.url('/paystub.txt'), case_type_id: 'income_verification', document_kind: 'pay_stub' });
    expect(processed.status).toBe(202);
    const { case_id: caseId, document_id: docId } = (await processed.json()) as { case_id: string; document_id: string };
    await until(async () => ((await (await api(a, 'GET', `/api/v1/cases/${caseId}`)).json()) as { runtime_status: string }).runtime_status === 'ready_for_review', 30_000);
    const before = (await (await api(a, 'GET', `/api/v1/cases/${caseId}`)).json()) as Record<string, unknown>;
    await until(() => receiver.requests.some((r) => r.rawBody.includes(caseId)), 30_000);

    // The copy is taken while the server answers requests: each session is in it whole or not at all.
    // Never into the directory a running server owns, even with --force.
    const [backup, busy, ...sessions] = await Promise.all([
      runCliInProcess(['backup', '--out', file, '--json'], env(dirA)),
      restore(['--in', join(root, 'missing.backup'), '--force'], dirA),
      ...Array.from({ length: 6 }, () => api(a, 'POST', '/api/v1/sessions', { case_type_id: 'income_verification' })),
    ]);
    expect(backup.code, backup.stderr + backup.stdout).toBe(0);
    expect(backup.json()).toMatchObject({ out: file, secret: 'generated', migrations: expect.any(Number), paused_ms: expect.any(Number) });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const created = await Promise.all(sessions.map(async (s) => (s.status === 201 ? ((await s.json()) as { case_id: string }).case_id : undefined)));
    expect(created.every(Boolean)).toBe(true);
    expect(busy.exitCode).toBe(1);
    expect(errorOf(busy)).toMatchObject({ code: 'precondition_required' });

    expect(await a.stop()).toBe(0);

    const restored = await runCli(['restore', '--in', file, '--json'], env(dirB));
    expect(restored.code, restored.stderr + restored.stdout).toBe(0);
    expect(restored.json()).toMatchObject({ restored: dirB, secret: 'generated' });
    const refused = await restore(['--in', file], dirB);
    expect(refused.exitCode).toBe(1);
    expect(errorOf(refused).message).toContain('--force');
    const wrongSecret = await restore(['--in', file, '--force'], dirB, { DOSSIER_SECRET: 'another-secret-another-secret-another' });
    expect(wrongSecret.exitCode).toBe(1);
    expect(errorOf(wrongSecret).message).toContain('DOSSIER_SECRET');
    const forced = await restore(['--in', file, '--force'], dirB);
    expect(forced.exitCode, JSON.stringify(forced.result)).toBe(0);
    // The generated secret lives beside the database (never in it) and travels with the backup.
    expect(readdirSync(dirB).sort()).toEqual(['pgdata', 'secret']);

    const b = await startProcess(['serve'], env(dirB));
    running.push(b);
    // The case with its document and document-derived facts, under the same key.
    const after = (await (await api(b, 'GET', `/api/v1/cases/${caseId}`)).json()) as { workspace: { documents: unknown[]; facts: { fact_id: string; value: unknown; evidence: { quote: string }[] }[] } };
    expect(after).toEqual(before);
    expect(after.workspace.documents).toEqual([expect.objectContaining({ doc_id: docId, status: 'processed' })]);
    expect(after.workspace.facts.find((f) => f.fact_id === 'employee_name')).toMatchObject({ value: 'Jane Doe', evidence: [expect.objectContaining({ quote: 'Jane Doe' })] });
    for (const sessionCase of created) {
      const res = await api(b, 'GET', `/api/v1/cases/${sessionCase}`);
      expect([200, 404]).toContain(res.status);
    }
    // The webhook endpoints, through the restored server's admin socket.
    const listed = await runCliInProcess(['endpoint', 'list', '--org', demo.org_id, '--env', 'test', '--json'], env(dirB));
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json().endpoints).toEqual([expect.objectContaining({ endpoint_id: endpoint.endpoint_id, url: receiver.url })]);

    // A new delivery from the restored deployment verifies with the signing secret shown at creation:
    // the sealed secret opened under the restored deployment secret.
    const decided = await api(b, 'POST', `/api/v1/cases/${caseId}/decision`, { decision: 'approve' });
    expect(decided.status).toBe(200);
    const completed = await until(() => receiver.requests.find((r) => r.rawBody.includes('"v1.case.completed"') && r.rawBody.includes(caseId)), 30_000);
    verifySignatures(completed, endpoint.signing_secret);
    expect(await b.stop()).toBe(0);
  }, 180_000);

  it('refuses a file that is not a backup, or a damaged one, before touching DATA_DIR', async () => {
    const target = join(root, 'untouched');
    const missing = await restore(['--in', join(root, 'missing.backup')], target);
    expect(missing.exitCode).toBe(1);
    const junk = join(root, 'junk.backup');
    writeFileSync(junk, 'DOSSIER-BACKUP/1\n{"format":1}\n');
    const damaged = await restore(['--in', junk], target);
    expect(damaged.exitCode).toBe(1);
    expect(errorOf(damaged).message).toContain('manifest');
    writeFileSync(junk, 'not a backup at all');
    expect(errorOf(await restore(['--in', junk], target)).message).toContain('not a Dossier backup');
    expect(() => readdirSync(target)).toThrow();
    expect((await restore([], target)).exitCode).toBe(2);
    expect((await restore(['--in', junk], target, { DATABASE_URL: 'postgres://127.0.0.1/none' })).exitCode).toBe(1);
  });
});
