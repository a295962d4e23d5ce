import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startProcess } from '../support/processes.ts';
import { until } from '../support/harness.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'dossier-demo-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// Issue 9 §4: server output ends up in logs, so the `*` test key is printed once, on the first start.
it('creates and prints the demo workspace key on the embedded database first start only, and the worker readies the demo case', async () => {
  const first = await startProcess(['serve', '--no-worker'], { DATA_DIR: dataDir }, 150_000);
  try {
    expect(first.banner.demo).toMatchObject({ org_id: expect.stringMatching(/^org_/), key: expect.stringMatching(/^sk_test_/) });
    // Issue 11: the demo case to review, with its dashboard link.
    expect(first.banner.demo).toMatchObject({ dashboard: { case_url: expect.stringMatching(/\/dashboard\/cases\/case_/) } });
    expect(existsSync(join(dataDir, 'secret'))).toBe(true);
  } finally {
    expect(await first.stop('SIGTERM')).toBe(0);
  }
  const demo = first.banner.demo as { key: string; dashboard: { case_url: string } };
  const caseId = demo.dashboard.case_url.split('/').pop()!;
  // The second start runs the worker: it reads the demo pay stub and the case waits for review.
  const second = await startProcess(['serve'], { DATA_DIR: dataDir }, 150_000);
  try {
    expect(JSON.stringify(second.banner)).not.toMatch(/sk_test_/);
    expect(second.banner.demo).toEqual({ note: expect.stringContaining('dossier -- demo') });
    const read = async () => {
      const res = await fetch(`${second.url}/api/v1/cases/${caseId}`, { headers: { authorization: `Bearer ${demo.key}` } });
      return (await res.json()) as { runtime_status: string; workspace: { facts: { fact_id: string; source: string; evidence: unknown[] }[] } };
    };
    const ready = await until(async () => {
      const c = await read();
      return c.runtime_status === 'ready_for_review' ? c : undefined;
    }, 120_000, 500);
    expect(ready.workspace.facts.map((f) => [f.fact_id, f.source, f.evidence.length > 0])).toEqual([
      ['employee_name', 'document_extraction', true],
      ['employer_name', 'document_extraction', true],
      ['pay_date', 'document_extraction', true],
      ['gross_pay', 'document_extraction', true],
    ]);
  } finally {
    expect(await second.stop('SIGTERM')).toBe(0);
  }
}, 400_000);
