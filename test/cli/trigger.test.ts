import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliInProcess } from '../support/processes.ts';

/**
 * `dossier trigger CASE_TYPE OUTCOME`, as a person runs it with no server started: the CLI makes
 * the case through a sample document in the demo workspace, reads the document itself, and prints
 * the case's events until it settles. The triggers run in this process (runCommandLine, with the
 * document read by this process's worker); the refused outcome as a `dossier` process.
 */
describe('dossier trigger', () => {
  let dataDir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'dossier-trigger-'));
    env = { DATA_DIR: dataDir, DOSSIER_SECRET: 's'.repeat(40) };
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints one JSON object per event with --json, from the case\'s creation until it settles', async () => {
    const run = await runCliInProcess(['trigger', 'income_verification', 'gate_mismatch', '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ type: 'trigger.created', case_id: expect.stringMatching(/^case_/), document_url: 'dossier-test:income_verification/pay_stub/gate_mismatch', read_by: 'this process' });
    const events = lines.filter((l) => l.type === 'case.event');
    expect(events.map((e) => e.event_type)).toEqual(expect.arrayContaining(['case.created', 'document.uploaded', 'document.processing', 'document.processed', 'case.ready_for_review']));
    expect(events.every((e) => e.case_id === lines[0]!.case_id && typeof e.event_id === 'string')).toBe(true);
    expect(lines.at(-1)).toEqual({ type: 'trigger.settled', case_id: lines[0]!.case_id, runtime_status: 'ready_for_review', why_here_code: 'gate_failed' });
  }, 150_000);

  it('prints one readable line per event, and refuses an unknown outcome before making anything', async () => {
    const run = await runCliInProcess(['trigger', 'address_proof', 'all_facts'], env);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^case_\S+ created from dossier-test:address_proof\/utility_bill\/all_facts/);
    expect(lines.some((l) => /^\S+Z {2}document\.processed +evt_\S+ {2}doc_id=doc_/.test(l))).toBe(true);
    expect(lines.at(-1)).toMatch(/settled: ready_for_review \(review_step_reached\)$|settled: ready_for_review \(needs_input_without_applicant\)$|settled: complete/);

    const wrong = await runCli(['trigger', 'income_verification', 'on_fire', '--json'], env);
    expect(wrong.code).toBe(1);
    expect(wrong.json()).toMatchObject({ error: { code: 'invalid_request', message: expect.stringContaining('all_facts, missing_fact, gate_mismatch, unreadable, slow') } });
  }, 150_000);
});
