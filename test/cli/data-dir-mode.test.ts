import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adminSocketPath, startAdminSocket, stopAdminSocket } from '../../src/cli/admin-socket.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { openRuntime } from '../../src/runtime.ts';
import { checkDataDirMode } from '../../src/storage/data-dir.ts';
import { createTestApp, silentLogger } from '../support/harness.ts';

const root = mkdtempSync(join(tmpdir(), 'dossier-mode-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function dirWithMode(name: string, mode: number): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, mode);
  return dir;
}

// Issue 9 §5: DATA_DIR writable by group or others is refused; readable by them is a warning.
describe('DATA_DIR mode at start', () => {
  it.each([
    [0o700, 'ok'], [0o750, 'warn'], [0o755, 'warn'], [0o770, 'refuse'], [0o777, 'refuse'], [0o702, 'refuse'],
  ])('mode %o: %s', (mode, expected) => {
    const checked = checkDataDirMode(dirWithMode(`d${mode.toString(8)}`, mode));
    if (expected === 'refuse') expect(checked).toEqual({ ok: false, message: expect.stringContaining('chmod 700') });
    else if (expected === 'warn') expect(checked).toEqual({ ok: true, warning: expect.stringContaining('chmod 700') });
    else expect(checked).toEqual({ ok: true });
  });

  it('a missing DATA_DIR is fine (it is created 0700)', () => {
    expect(checkDataDirMode(join(root, 'absent'))).toEqual({ ok: true });
  });

  it('the runtime refuses a world-writable DATA_DIR before opening the database', async () => {
    const dir = dirWithMode('open', 0o777);
    const attempt = openRuntime(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }), { logger: silentLogger });
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(attempt).rejects.toThrow(/writable by group or others/);
    expect(() => statSync(join(dir, 'pgdata'))).toThrow();
  });
});

describe('admin socket', () => {
  it('is created owner-only even when the process umask is permissive, and the umask is restored', async () => {
    const t = await createTestApp('embedded');
    const dir = dirWithMode('sock', 0o700);
    const previous = process.umask(0o000);
    try {
      const server = await startAdminSocket(t.runtime, dir);
      expect(statSync(adminSocketPath(dir)).mode & 0o777).toBe(0o600);
      expect(process.umask()).toBe(0o000);
      await stopAdminSocket(server, dir);
    } finally {
      process.umask(previous);
      await t.close();
    }
  });
});
