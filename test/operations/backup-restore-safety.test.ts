import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackupOutputError, readBackup, writeBackup, type BackupContents } from '../../src/cli/backup-archive.ts';
import { restoreBackup } from '../../src/cli/commands/backup.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/storage/database.ts';
import { runCli, runCliInProcess } from '../support/processes.ts';

/**
 * Issue 23 §4. `restore --force` used to delete the database and the secret before it knew the
 * backup loaded; a backup with good checksums and a bad tar left an empty DATA_DIR. And a
 * `<out>.partial` planted at 0644 kept its mode, so the backup holding the secret came out
 * world-readable.
 */
describe('backup and restore keep what they hold (issue 23 §4)', () => {
  const root = mkdtempSync(join(tmpdir(), 'dossier-backup-safety-'));
  const live = join(root, 'live');
  const good = join(root, 'good.backup');
  const env = (dataDir: string) => ({ DATA_DIR: dataDir });
  /** A spawned CLI starts Node and PGlite: 5–15 s on the shared 2-core machine, more under load. */
  const CLI_TIMEOUT = 150_000;
  const restore = (args: string[], dataDir: string) => restoreBackup(args, loadConfig(env(dataDir)));
  const errorOf = (outcome: { result: object }) => (outcome.result as { error: { code: string; message: string } }).error;
  let orgId: string;
  let secretBefore: string;
  let original: BackupContents;

  /** Opens DATA_DIR the way the server does (lock, PGlite on disk) and reads the org made below. */
  const readOrgName = async (dataDir: string) => {
    const handle = await openDatabase({ kind: 'embedded', dataDir });
    try {
      return (await handle.db.selectFrom('orgs').select('name').where('org_id', '=', orgId).executeTakeFirst())?.name;
    } finally {
      await handle.close();
    }
  };

  beforeAll(async () => {
    const created = await runCliInProcess(['org', 'create', '--name', 'Kept Org', '--json'], env(live));
    expect(created.code, created.stderr + created.stdout).toBe(0);
    orgId = (created.json() as { org_id: string }).org_id;
    secretBefore = readFileSync(join(live, 'secret'), 'utf8');
    const backup = await runCliInProcess(['backup', '--out', good, '--json'], env(live));
    expect(backup.code, backup.stderr + backup.stdout).toBe(0);
    original = readBackup(good);
    expect(original.files.map((f) => f.name)).toEqual(['secret']);
  }, 320_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('backup over a stale <out>.partial planted at 0644 writes the backup 0600 (regression: a world-readable backup with the secret)', async () => {
    const out = join(root, 'planted.backup');
    writeFileSync(`${out}.partial`, 'stale');
    chmodSync(`${out}.partial`, 0o644);
    const backup = await runCliInProcess(['backup', '--out', out, '--json'], env(live));
    expect(backup.code, backup.stderr + backup.stdout).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(existsSync(`${out}.partial`)).toBe(false);
    expect(readBackup(out).files.map((f) => f.name)).toEqual(['secret']);
  }, 160_000);

  it('refuses a <out>.partial that is a symlink, and writes nothing through it', async () => {
    const out = join(root, 'via-link.backup');
    const target = join(root, 'elsewhere');
    writeFileSync(target, 'not yours to overwrite');
    symlinkSync(target, `${out}.partial`);
    // As a `dossier` process: the refusal is its exit code.
    const backup = await runCli(['backup', '--out', out, '--json'], env(live), CLI_TIMEOUT);
    expect(backup.code).toBe(1);
    expect((backup.json() as { error: { code: string; message: string } }).error).toMatchObject({ code: 'precondition_required', message: expect.stringContaining('is a symbolic link') });
    expect(readFileSync(target, 'utf8')).toBe('not yours to overwrite');
    expect(lstatSync(`${out}.partial`).isSymbolicLink()).toBe(true);
    expect(existsSync(out)).toBe(false);
  }, 160_000);

  it.runIf(process.getuid?.() === 0)("refuses a <out>.partial owned by another user, and leaves it alone", () => {
    const out = join(root, 'theirs.backup');
    writeFileSync(`${out}.partial`, 'theirs', { mode: 0o644 });
    chownSync(`${out}.partial`, 65534, 65534);
    const input = { createdAt: new Date(), migrations: [], database: new Uint8Array(1), files: [], secretSource: 'generated' as const, secret: 'a-secret' };
    expect(() => writeBackup(out, input)).toThrow(BackupOutputError);
    expect(() => writeBackup(out, input)).toThrow('belongs to uid 65534');
    expect(readFileSync(`${out}.partial`, 'utf8')).toBe('theirs');
    expect(existsSync(out)).toBe(false);
  });

  /** A backup whose checksums all hold, around a database part that does not load. */
  const withDatabase = (name: string, database: Uint8Array) => {
    const path = join(root, name);
    writeBackup(path, {
      createdAt: new Date(original.manifest.created_at),
      migrations: original.manifest.migrations,
      database,
      // A different secret: if it ever landed, the check below would see it.
      files: [{ name: 'secret', content: Buffer.from('another-secret\n') }],
      secretSource: 'generated',
      secret: 'another-secret',
    });
    return path;
  };

  it('restore --force of a backup whose database does not load leaves the current database and secret serving (regression: an emptied DATA_DIR)', async () => {
    const tar = gunzipSync(original.database);
    const blocks = Math.floor(tar.byteLength / 2 / 512);
    const badHeader = Buffer.from(tar);
    badHeader[5]! ^= 0x01; // a letter of the first entry's name: its header checksum no longer holds
    const flipped = readFileSync(good);
    flipped[flipped.byteLength - 100]! ^= 0xff;
    const otherDatabase = await PGlite.create();
    const notDossier = new Uint8Array(await (await otherDatabase.dumpDataDir('gzip')).arrayBuffer());
    await otherDatabase.close();
    writeFileSync(join(root, 'flipped.backup'), flipped);

    const cases: [file: string, reason: string][] = [
      [withDatabase('truncated-tar.backup', gzipSync(tar.subarray(0, blocks * 512))), 'truncated'],
      [withDatabase('damaged-header.backup', gzipSync(badHeader)), 'fails its checksum'],
      [withDatabase('not-gzip.backup', randomBytes(4096)), 'not gzip'],
      [withDatabase('gzip-not-tar.backup', gzipSync(Buffer.from('plain text, not a tar archive\n'.repeat(200)))), 'damaged'],
      [withDatabase('not-dossier.backup', notDossier), 'does not open'],
      [join(root, 'flipped.backup'), 'checksum'],
    ];
    for (const [file, reason] of cases) {
      const outcome = await restore(['--in', file, '--force'], live);
      expect(outcome.exitCode, `${file}: ${JSON.stringify(outcome.result)}`).toBe(1);
      expect(errorOf(outcome).message, file).toContain(reason);
      expect(readdirSync(live).sort(), file).toEqual(['pgdata', 'secret']);
      expect(readFileSync(join(live, 'secret'), 'utf8'), file).toBe(secretBefore);
      expect(await readOrgName(live), file).toBe('Kept Org');
    }
  }, 300_000);

  it('a swap that fails halfway is undone: the previous database and secret are put back', async () => {
    // A folder the deployment does not own stays through --force; a backed-up file of the same
    // name cannot be renamed over it, so the swap fails after pgdata and the secret have moved.
    mkdirSync(join(live, 'notes'));
    const file = join(root, 'collides.backup');
    writeBackup(file, {
      createdAt: new Date(original.manifest.created_at),
      migrations: original.manifest.migrations,
      database: original.database,
      files: [{ name: 'notes', content: Buffer.from('x') }, { name: 'secret', content: Buffer.from('another-secret\n') }],
      secretSource: 'generated',
      secret: 'another-secret',
    });
    const outcome = await restore(['--in', file, '--force'], live);
    expect(outcome.exitCode, JSON.stringify(outcome.result)).toBe(1);
    expect(errorOf(outcome)).toMatchObject({ code: 'internal_error', message: expect.stringContaining('nothing in it was changed') });
    expect(readdirSync(live).sort()).toEqual(['notes', 'pgdata', 'secret']);
    expect(readFileSync(join(live, 'secret'), 'utf8')).toBe(secretBefore);
    expect(await readOrgName(live)).toBe('Kept Org');
    rmSync(join(live, 'notes'), { recursive: true });
  }, 200_000);

  it('restore --force of a good backup swaps it in and leaves no staging folder behind', async () => {
    const outcome = await restore(['--in', good, '--force'], live);
    expect(outcome.exitCode, JSON.stringify(outcome.result)).toBe(0);
    expect(readdirSync(live).sort()).toEqual(['pgdata', 'secret']);
    expect(readFileSync(join(live, 'secret'), 'utf8')).toBe(secretBefore);
    expect(statSync(join(live, 'secret')).mode & 0o777).toBe(0o600);
    expect(await readOrgName(live)).toBe('Kept Org');
  }, 160_000);
});
