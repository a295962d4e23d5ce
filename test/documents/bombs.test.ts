import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startProcess, type RunningServer } from '../support/processes.ts';
import { docxLargeTable, docxZipBomb, pdfWithHugeImage } from './bomb-fixtures.ts';
import { startDocumentServer } from './document-server.ts';

/**
 * Hostile documents sent through POST /api/v1/process to a real `dossier serve` process (API and
 * worker in one process, embedded database), while GET /healthz is polled all along:
 * - a DOCX zip bomb: 8 GB of XML behind sizes forged to 4 KB, in an 8 MB file;
 * - a PDF whose only page draws a 40,000 × 40,000 flate-compressed image (6.4 GB as RGBA);
 * - a DOCX holding one table of 150,000 cells.
 * Each document must end `failed` with a reason code, /healthz must answer every poll, and the
 * server must be the same process at the end. The figures are printed for the release note.
 */
describe('documents that try to take the service down', () => {
  let dataDir: string;
  let server: RunningServer;
  let docs: Awaited<ReturnType<typeof startDocumentServer>>;
  let key: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'dossier-bombs-'));
    docs = await startDocumentServer({
      '/bomb.docx': { body: docxZipBomb(8), type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
      '/huge-image.pdf': { body: pdfWithHugeImage(40_000), type: 'application/pdf' },
      '/big-table.docx': { body: docxLargeTable(15_000, 10), type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
    });
    const env = { DATA_DIR: dataDir, DOSSIER_SECRET: 'bombs-secret-0123456789abcdef0123456789', DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' };
    server = await startProcess(['serve'], env);
    const demo = await runCli(['demo', '--json'], env);
    expect(demo.code, demo.stderr).toBe(0);
    key = String(demo.json().key);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await docs?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps answering /healthz, stays the same process, and fails each document with a reason code', async () => {
    const pid = server.pid;
    const alive = () => server.child.exitCode === null && server.child.signalCode === null;

    // /healthz every 100 ms until told to stop; every poll is timed and must answer 200.
    const polls: { ms: number; status: number | string }[] = [];
    const extractionPids = new Set<number>();
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const started = performance.now();
        let status: number | string;
        try {
          const res = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(30_000) });
          await res.arrayBuffer();
          status = res.status;
        } catch (error) {
          status = (error as Error).name;
        }
        polls.push({ ms: performance.now() - started, status });
        for (const child of childPids(pid)) extractionPids.add(child);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    const attacks = ['/bomb.docx', '/huge-image.pdf', '/big-table.docx'];
    const started = performance.now();
    const accepted = await Promise.all(attacks.map(async (path) => {
      const res = await fetch(`${server.url}/api/v1/process`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'idempotency-key': `bombs-${path}`, 'content-type': 'application/json' },
        body: JSON.stringify({ document_url: docs.url(path), case_type_id: 'income_verification', document_kind: 'pay_stub' }),
      });
      expect(res.status, await res.clone().text()).toBe(202);
      return { path, ...((await res.json()) as { case_id: string; document_id: string }) };
    }));

    // Each document settles (processed or failed), then its case leaves processing and the gates.
    const settled = new Map<string, { status: string; failure_reason: string | null; seconds: number; case_status: string }>();
    await expect.poll(async () => {
      for (const a of accepted) {
        if (settled.has(a.path)) continue;
        const res = await fetch(`${server.url}/api/v1/cases/${a.case_id}`, { headers: { authorization: `Bearer ${key}` } });
        const body = (await res.json()) as { runtime_status: string; workspace: { documents: { doc_id: string; status: string; failure_reason: string | null }[] } };
        const doc = body.workspace.documents.find((d) => d.doc_id === a.document_id)!;
        if ((doc.status === 'failed' || doc.status === 'processed') && !['processing', 'gate_ready'].includes(body.runtime_status)) {
          settled.set(a.path, { status: doc.status, failure_reason: doc.failure_reason, seconds: (performance.now() - started) / 1000, case_status: body.runtime_status });
        }
      }
      return settled.size;
    }, { timeout: 150_000, interval: 250 }).toBe(attacks.length);
    polling = false;
    await poller;

    const latencies = polls.map((p) => p.ms).sort((a, b) => a - b);
    const worst = latencies[latencies.length - 1]!;
    const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))]!;
    const figures = {
      healthz_polls: polls.length,
      healthz_failed: polls.filter((p) => p.status !== 200).length,
      healthz_worst_ms: Math.round(worst),
      healthz_p99_ms: Math.round(p99),
      healthz_median_ms: Math.round(latencies[Math.floor(latencies.length / 2)]!),
      server_pid: pid,
      extraction_child_pids: [...extractionPids],
      documents: Object.fromEntries([...settled].map(([path, s]) => [path, { ...s, seconds: Math.round(s.seconds * 10) / 10 }])),
    };
    console.log(`document bombs: ${JSON.stringify(figures, null, 2)}`);

    expect(polls.filter((p) => p.status !== 200)).toEqual([]);
    // Generous for two cores shared with other work: before, polls went unanswered for over 10 s.
    expect(worst).toBeLessThan(5_000);
    expect(polls.length).toBeGreaterThan(3);
    expect(alive()).toBe(true);
    expect(server.banner.pid).toBe(pid);
    // Extraction ran in a child of the server, never in the server itself.
    expect(extractionPids.size).toBeGreaterThan(0);
    expect([...extractionPids]).not.toContain(pid);
    expect(settled.get('/bomb.docx')).toMatchObject({ status: 'failed', failure_reason: 'too_large' });
    expect(settled.get('/huge-image.pdf')).toMatchObject({ status: 'failed', failure_reason: 'no_text_found' });
    expect(settled.get('/big-table.docx')).toMatchObject({ status: 'failed', failure_reason: 'too_large' });
    // Every case moved on to review with its failed document.
    for (const s of settled.values()) expect(s.case_status).toBe('ready_for_review');
    // The server answers the API too, after the attack, as the same process.
    const after = await fetch(`${server.url}/api/v1/cases/${accepted[0]!.case_id}`, { headers: { authorization: `Bearer ${key}` } });
    expect(after.status).toBe(200);
    expect(alive()).toBe(true);
  }, 240_000);
});

/** The direct children of a process (Linux); empty elsewhere. */
function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
