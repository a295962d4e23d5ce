import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { open, seal } from '../../src/domain/crypto/secret-box.ts';
import { createCipheriv, randomBytes } from 'node:crypto';
import { deriveKey } from '../../src/domain/crypto/secret-box.ts';
import { createEndpoint, resealLegacyEndpointSecrets, signingSecretsOf } from '../../src/domain/webhooks/endpoints.ts';
import { MissingSecretError, secretFilePath } from '../../src/deployment-secret.ts';
import { createLogger } from '../../src/logging.ts';
import { openRuntime } from '../../src/runtime.ts';
import { openDatabase } from '../../src/storage/database.ts';
import { migrate } from '../../src/storage/migrate.ts';
import { readSetting, writeSetting } from '../../src/storage/settings.ts';
import { createTestApp, describeEachBackend, freshDatabase, silentLogger } from '../support/harness.ts';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-secret-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('sealed values are bound to their owner', () => {
  const secret = 'a-deployment-secret-of-enough-length-0123';
  it('opens only for the owner it was sealed for', () => {
    const box = seal(secret, { purpose: 'webhook-signing-secret', owner: 'ep_A' }, 'whsec_x');
    expect(box.startsWith('v2.')).toBe(true);
    expect(open(secret, { purpose: 'webhook-signing-secret', owner: 'ep_A' }, box)).toBe('whsec_x');
    expect(open(secret, { purpose: 'webhook-signing-secret', owner: 'ep_B' }, box)).toBeUndefined();
    expect(open(secret, { purpose: 'idempotency', owner: 'ep_A' }, box)).toBeUndefined();
    expect(open('another-secret-another-secret-another-0', { purpose: 'webhook-signing-secret', owner: 'ep_A' }, box)).toBeUndefined();
  });
});

describeEachBackend('webhook endpoint secrets', (backend) => {
  it('a signing-secret box copied to another endpoint does not open there', async () => {
    const t = await createTestApp(backend, { env: { DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' } });
    try {
      const ws = await t.workspace();
      const a = await createEndpoint(t.ctx, { tenant: { orgId: ws.orgId, environment: 'test' }, url: 'http://127.0.0.1:1/a', events: ['*'] });
      const b = await createEndpoint(t.ctx, { tenant: { orgId: ws.orgId, environment: 'test' }, url: 'http://127.0.0.1:1/b', events: ['*'] });
      if (!a.ok || !b.ok) throw new Error('endpoints not created');
      const rowA = await t.ctx.db.selectFrom('webhook_endpoints').selectAll().where('endpoint_id', '=', a.value.endpoint_id).executeTakeFirstOrThrow();
      expect(signingSecretsOf(t.ctx.secret, rowA, new Date())).toEqual([a.value.signing_secret]);
      await t.ctx.db.updateTable('webhook_endpoints').set({ secret_box: rowA.secret_box }).where('endpoint_id', '=', b.value.endpoint_id).execute();
      const rowB = await t.ctx.db.selectFrom('webhook_endpoints').selectAll().where('endpoint_id', '=', b.value.endpoint_id).executeTakeFirstOrThrow();
      expect(() => signingSecretsOf(t.ctx.secret, rowB, new Date())).toThrow(/cannot be opened/);
    } finally {
      await t.close();
    }
  });
});

/** A box as versions before issue 9 wrote it: no associated data. */
function legacySeal(secret: string, purpose: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(secret, purpose), iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

describeEachBackend('legacy sealed endpoint secrets', (backend) => {
  it('are re-sealed at start, bound to their endpoint', async () => {
    const t = await createTestApp(backend, { env: { DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' } });
    try {
      const ws = await t.workspace();
      const a = await createEndpoint(t.ctx, { tenant: { orgId: ws.orgId, environment: 'test' }, url: 'http://127.0.0.1:1/a', events: ['*'] });
      const b = await createEndpoint(t.ctx, { tenant: { orgId: ws.orgId, environment: 'test' }, url: 'http://127.0.0.1:1/b', events: ['*'] });
      if (!a.ok || !b.ok) throw new Error('endpoints not created');
      const old = legacySeal(t.ctx.secret, 'webhook-signing-secret', 'whsec_legacy');
      await t.ctx.db.updateTable('webhook_endpoints').set({ secret_box: old }).where('endpoint_id', '=', a.value.endpoint_id).execute();
      const row = () => t.ctx.db.selectFrom('webhook_endpoints').selectAll().where('endpoint_id', '=', a.value.endpoint_id).executeTakeFirstOrThrow();
      expect(signingSecretsOf(t.ctx.secret, await row(), new Date())).toEqual(['whsec_legacy']);

      expect(await resealLegacyEndpointSecrets(t.ctx)).toBe(1);
      const resealed = await row();
      expect(resealed.secret_box.startsWith('v2.')).toBe(true);
      expect(signingSecretsOf(t.ctx.secret, resealed, new Date())).toEqual(['whsec_legacy']);
      await t.ctx.db.updateTable('webhook_endpoints').set({ secret_box: resealed.secret_box }).where('endpoint_id', '=', b.value.endpoint_id).execute();
      const moved = await t.ctx.db.selectFrom('webhook_endpoints').selectAll().where('endpoint_id', '=', b.value.endpoint_id).executeTakeFirstOrThrow();
      expect(() => signingSecretsOf(t.ctx.secret, moved, new Date())).toThrow(/cannot be opened/);
      expect(await resealLegacyEndpointSecrets(t.ctx)).toBe(0);
    } finally {
      await t.close();
    }
  });
});

describe('the deployment secret', () => {
  it.runIf(inject('postgresUrl'))('refuses to start on PostgreSQL without DOSSIER_SECRET, saying how to make one', async () => {
    const db = await freshDatabase('postgres');
    try {
      const attempt = openRuntime(loadConfig({ LOG_LEVEL: 'silent' }), { logger: silentLogger, target: db.target });
      await expect(attempt).rejects.toBeInstanceOf(MissingSecretError);
      await expect(attempt).rejects.toThrow(/openssl rand -base64 48/);
    } finally {
      await db.dispose();
    }
  });

  it('on the embedded database: generated once into DATA_DIR/secret (mode 0600), never into the database', async () => {
    const dataDir = tempDir();
    const first = await openRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { logger: silentLogger });
    const secret = first.ctx.secret;
    try {
      expect(secret.length).toBeGreaterThanOrEqual(32);
      expect(readFileSync(secretFilePath(dataDir), 'utf8').trim()).toBe(secret);
      expect(statSync(secretFilePath(dataDir)).mode & 0o777).toBe(0o600);
      expect(await readSetting(first.ctx.db, 'dossier_secret')).toBeUndefined();
      const values = await first.ctx.db.selectFrom('settings').select('value').execute();
      expect(values.some((v) => v.value.includes(secret))).toBe(false);
    } finally {
      await first.close();
    }
    const again = await openRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { logger: silentLogger });
    expect(again.ctx.secret).toBe(secret);
    await again.close();
  });

  it('moves a secret an earlier version stored in the embedded database out to the file', async () => {
    const dataDir = tempDir();
    const legacy = 'legacy-secret-from-the-settings-table-0123';
    const handle = await openDatabase({ kind: 'embedded', dataDir });
    await migrate(handle.db);
    await writeSetting(handle.db, 'dossier_secret', legacy, new Date());
    await handle.close();

    const runtime = await openRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { logger: silentLogger });
    try {
      expect(runtime.ctx.secret).toBe(legacy);
      expect(readFileSync(secretFilePath(dataDir), 'utf8').trim()).toBe(legacy);
      expect(statSync(secretFilePath(dataDir)).mode & 0o777).toBe(0o600);
      expect(await readSetting(runtime.ctx.db, 'dossier_secret')).toBeUndefined();
    } finally {
      await runtime.close();
    }
  });
});

describe('log redaction', () => {
  function capture() {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    return { logger: createLogger('info', stream), text: () => lines.join('') };
  }

  it('censors secret fields at any depth, signed links, and credentials inside text', () => {
    const { logger, text } = capture();
    const key = `sk_test_${'K'.repeat(43)}`;
    logger.info(
      {
        outer: { inner: { deeper: { token: 'tok-1', signing_secret: 'whsec_abc', password: 'hunter2', nested: [{ session_token: 'st-9' }] } } },
        package: { documents: [{ signed_url: 'https://files.example/d?token=sig-1', document_url: 'https://bucket.example/a.pdf?X-Amz-Signature=sig-2' }], case_file_url: 'https://app.example/case-files/c?token=sig-3' },
        req: { headers: { authorization: `Bearer ${key}`, cookie: 'dossier_session=cookie-1' } },
        err: { message: `upstream refused https://x.example/cb?token=sig-4 with ${key}` },
        case_id: 'case_visible',
      },
      `calling with Bearer ${key}`,
    );
    const out = text();
    for (const secret of ['tok-1', 'whsec_abc', 'hunter2', 'st-9', 'sig-1', 'sig-2', 'sig-3', 'sig-4', 'K'.repeat(43), 'cookie-1']) {
      expect(out, secret).not.toContain(secret);
    }
    expect(out).toContain('case_visible');
    expect(out).toContain('[redacted]');
  });
});
