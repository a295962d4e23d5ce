import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startProcess, type RunningServer } from '../support/processes.ts';
import { docxLargeTable, docxZipBomb, pdfWithHugeImage } from './bomb-fixtures.ts';
import { startDocumentServer } from './document-server.ts';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/**
 * Hostile documents sent through POST /api/v1/process to a real `dossier serve` process (API and
 * worker in one process, embedded database), while GET /healthz is polled all along:
 * - a DOCX zip bomb: 8 GB of XML behind sizes forged to 4 KB, in an 8 MB file;
 * - a PDF whose only page draws a 40,000 × 40,000 flate-compressed image (6.4 GB as RGBA);
 * - a DOCX holding one table of 150,000 cells.
 * Each document must end `failed` with a reason code, /healthz must answer every poll, and the
 * server must be the same process at the end. The figures are printed for the release note.
 * A second server with a small memory cap shows the last line of defence: an extraction that
 * outgrows the cap is killed, three times, and the document is given up as `extraction_aborted`.
 */
describe('documents that try to take the service down', () => {
  let docs: Awaited<ReturnType<typeof startDocumentServer>>;
  const dataDirs: string[] = [];
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    docs = await startDocumentServer({
      '/bomb.docx': { body: docxZipBomb(8), type: DOCX },
      '/huge-image.pdf': { body: pdfWithHugeImage(40_000), type: 'application/pdf' },
      '/big-table.docx': { body: docxLargeTable(15_000, 10), type: DOCX },
      // Under the cell limit, so mammoth reads it: ~400 MB at its peak.
      '/heavy-table.docx': { body: docxLargeTable(2_400, 10), type: DOCX },
    });
  }, 60_000);

  afterAll(async () => {
    for (const server of servers) await server.stop();
    await docs?.close();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  async function serve(env: Record<string, string> = {}): Promise<{ server: RunningServer; key: string }> {
    const dataDir = mkdtempSync(join(tmpdir(), 'dossier-bombs-'));
    dataDirs.push(dataDir);
    const fullEnv = { DATA_DIR: dataDir, DOSSIER_SECRET: 'bombs-secret-0123456789abcdef0123456789', DOSSIER_ALLOW_PRIVATE_NETWORK: 'true', ...env };
    const server = await startProcess(['serve'], fullEnv);
    servers.push(server);
    const demo = await runCli(['demo', '--json'], fullEnv);
    expect(demo.code, demo.stderr).toBe(0);
    return { server, key: String(demo.json().key) };
  }

  it('keeps answering /healthz, stays the same process, and fails each document with a reason code', async () => {
    const { server, key } = await serve();
    const result = await attack(server, key, (path) => docs.url(path), ['/bomb.docx', '/huge-image.pdf', '/big-table.docx']);
    console.log(`document bombs: ${JSON.stringify(result.figures, null, 2)}`);

    expect(result.failedPolls).toEqual([]);
    // Generous for two cores shared with other work: before, polls went unanswered for over 10 s.
    expect(result.worstMs).toBeLessThan(5_000);
    expect(result.alive).toBe(true);
    // Extraction ran in a child of the server, never in the server itself.
    expect(result.extractionPids.length).toBeGreaterThan(0);
    expect(result.extractionPids).not.toContain(server.pid);
    expect(result.settled.get('/bomb.docx')).toMatchObject({ status: 'failed', failure_reason: 'too_large' });
    expect(result.settled.get('/huge-image.pdf')).toMatchObject({ status: 'failed', failure_reason: 'no_text_found' });
    expect(result.settled.get('/big-table.docx')).toMatchObject({ status: 'failed', failure_reason: 'too_large' });
    // Every case moved on to review with its failed document.
    for (const s of result.settled.values()) expect(s.case_status).toBe('ready_for_review');
  }, 240_000);

  it('kills an extraction over the memory cap on each attempt and gives the document up as extraction_aborted', async () => {
    const { server, key } = await serve({ EXTRACTION_MEMORY_MB: '200' });
    const result = await attack(server, key, (path) => docs.url(path), ['/heavy-table.docx']);
    console.log(`memory cap: ${JSON.stringify(result.figures, null, 2)}`);

    expect(result.failedPolls).toEqual([]);
    expect(result.worstMs).toBeLessThan(5_000);
    expect(result.alive).toBe(true);
    expect(result.settled.get('/heavy-table.docx')).toMatchObject({ status: 'failed', failure_reason: 'extraction_aborted', case_status: 'ready_for_review' });
    // Three attempts, three children: each was killed and replaced.
    expect(result.extractionPids.length).toBeGreaterThanOrEqual(3);
  }, 240_000);
});

interface Settled { status: string; failure_reason: string | null; seconds: number; case_status: string }

/**
 * Sends each path through /process while polling /healthz every 100 ms, and waits until every
 * document has settled and its case has left processing and the gates.
 */
async function attack(server: RunningServer, key: string, url: (path: string) => string, paths: readonly string[]) {
  const pid = server.pid;
  const polls: { at: number; ms: number; status: number | string }[] = [];
  const extractionPids = new Set<number>();
  let extractionPeakRss = 0;
  const origin = performance.now();
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
      polls.push({ at: started - origin, ms: performance.now() - started, status });
      for (const child of childPids(pid)) {
        extractionPids.add(child);
        extractionPeakRss = Math.max(extractionPeakRss, residentMb(child));
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();

  const accepted = await Promise.all(paths.map(async (path) => {
    const res = await fetch(`${server.url}/api/v1/process`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': `bombs-${path}`, 'content-type': 'application/json' },
      body: JSON.stringify({ document_url: url(path), case_type_id: 'income_verification', document_kind: 'pay_stub' }),
    });
    expect(res.status, await res.clone().text()).toBe(202);
    return { path, ...((await res.json()) as { case_id: string; document_id: string }) };
  }));

  const settled = new Map<string, Settled>();
  try {
    await expect.poll(async () => {
      for (const a of accepted) {
        if (settled.has(a.path)) continue;
        const res = await fetch(`${server.url}/api/v1/cases/${a.case_id}`, { headers: { authorization: `Bearer ${key}` } });
        const body = (await res.json()) as { runtime_status: string; workspace: { documents: { doc_id: string; status: string; failure_reason: string | null }[] } };
        const doc = body.workspace.documents.find((d) => d.doc_id === a.document_id)!;
        if ((doc.status === 'failed' || doc.status === 'processed') && !['processing', 'gate_ready'].includes(body.runtime_status)) {
          settled.set(a.path, { status: doc.status, failure_reason: doc.failure_reason, seconds: (performance.now() - origin) / 1000, case_status: body.runtime_status });
        }
      }
      return settled.size;
    }, { timeout: 150_000, interval: 250 }).toBe(paths.length);
  } finally {
    polling = false;
    await poller;
  }

  const latencies = polls.map((p) => p.ms).sort((a, b) => a - b);
  const worstMs = latencies[latencies.length - 1] ?? Infinity;
  return {
    settled,
    worstMs,
    failedPolls: polls.filter((p) => p.status !== 200),
    extractionPids: [...extractionPids],
    alive: server.child.exitCode === null && server.child.signalCode === null && server.banner.pid === pid,
    figures: {
      healthz_polls: polls.length,
      healthz_failed: polls.filter((p) => p.status !== 200).length,
      healthz_worst_ms: Math.round(worstMs),
      healthz_median_ms: Math.round(latencies[Math.floor(latencies.length / 2)] ?? 0),
      healthz_slowest: [...polls].sort((a, b) => b.ms - a.ms).slice(0, 3).map((p) => `${Math.round(p.ms)} ms at +${(p.at / 1000).toFixed(1)} s`),
      server_pid: pid,
      extraction_child_pids: [...extractionPids],
      extraction_child_peak_rss_mb: extractionPeakRss,
      documents: Object.fromEntries([...settled].map(([path, s]) => [path, { ...s, seconds: Math.round(s.seconds * 10) / 10 }])),
    },
  };
}

/** Resident memory of a process in MB as /proc reports it (Linux); 0 elsewhere or once it has exited. */
function residentMb(pid: number): number {
  try {
    return Math.round(Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

/** The direct children of a process (Linux); empty elsewhere. */
function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
