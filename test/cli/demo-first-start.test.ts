import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startProcess } from '../support/processes.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'dossier-demo-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// Issue 9 §4: server output ends up in logs, so the `*` test key is printed once, on the first start.
it('creates and prints the demo workspace key on the embedded database first start only', async () => {
  const first = await startProcess(['serve', '--no-worker'], { DATA_DIR: dataDir }, 150_000);
  try {
    expect(first.banner.demo).toMatchObject({ org_id: expect.stringMatching(/^org_/), key: expect.stringMatching(/^sk_test_/) });
    // Issue 11: the demo case to review, with its dashboard link.
    expect(first.banner.demo).toMatchObject({ dashboard: { case_url: expect.stringMatching(/\/dashboard\/cases\/case_/) } });
    expect(existsSync(join(dataDir, 'secret'))).toBe(true);
  } finally {
    expect(await first.stop('SIGTERM')).toBe(0);
  }
  const second = await startProcess(['serve', '--no-worker'], { DATA_DIR: dataDir }, 150_000);
  try {
    expect(JSON.stringify(second.banner)).not.toMatch(/sk_test_/);
    expect(second.banner.demo).toEqual({ note: expect.stringContaining('dossier -- demo') });
  } finally {
    expect(await second.stop('SIGTERM')).toBe(0);
  }
}, 400_000);
