import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { extractPages } from '../../src/domain/documents/index.ts';
import { createExtractionPool, ExtractionAborted, type ExtractionPool } from '../../src/jobs/extraction-pool.ts';
import { fakeOcr } from '../extraction/helpers.ts';

const misbehaving = new URL('./misbehaving-child.ts', import.meta.url);
const text = (s: string) => new TextEncoder().encode(s);

/** True once no process with this id is left. */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

describe('extraction pool', () => {
  const pools: ExtractionPool[] = [];
  afterAll(async () => {
    for (const pool of pools) await pool.close();
  });
  const pool = (options: Parameters<typeof createExtractionPool>[0]) => {
    const created = createExtractionPool(options);
    pools.push(created);
    return created;
  };

  it('extracts real documents in a reused child, with the in-process result values', async () => {
    const p = pool({ size: 1 });
    const bytes = text('Pay date: 03/14/2026\n\n\nGross pay:  $1.00');
    const first = await p.extractPages({ bytes });
    expect(first).toMatchObject({ ok: true, value: { mime_type: 'text/plain', pages: [{ page_index: 0, text: 'Pay date: 03/14/2026\n\nGross pay:\t$1.00', method: 'plain' }] } });
    // Everything crosses the process boundary intact, typed arrays included.
    expect(first).toEqual(await extractPages({ ocr: fakeOcr() }, { bytes }));
    const [pid] = p.pids;
    expect(pid).not.toBe(process.pid);
    expect(await p.extractPages({ bytes: new Uint8Array(0) })).toMatchObject({ ok: false, reason_code: 'empty_document' });
    expect(p.pids).toEqual([pid]);
  });

  it('kills a child stuck past the deadline, and the next document gets a fresh one', async () => {
    // Long enough for a child to start on a loaded machine: the deadline counts from the hand-over.
    const p = pool({ size: 1, childModule: misbehaving, limits: { timeoutMs: 3_000 }, killGraceMs: 500 });
    const before = await p.extractPages({ bytes: text('pid') });
    const stuckPid = Number(before.ok && before.value.pages[0]!.text);
    const error = await p.extractPages({ bytes: text('hang') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExtractionAborted);
    expect((error as ExtractionAborted).reason).toBe('deadline');
    await expect.poll(() => gone(stuckPid)).toBe(true);
    const after = await p.extractPages({ bytes: text('pid') });
    expect(after.ok && Number(after.value.pages[0]!.text)).not.toBe(stuckPid);
  });

  it('kills a child over the memory cap', async () => {
    const p = pool({ size: 1, childModule: misbehaving, maxRssBytes: 400 * 1024 * 1024, memoryPollMs: 50 });
    const error = await p.extractPages({ bytes: text('memory') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExtractionAborted);
    expect((error as ExtractionAborted).reason).toBe('memory');
    expect((error as Error).message).toMatch(/the cap is 400 MB/);
  });

  it('reports a child that died as a crash', async () => {
    const p = pool({ size: 1, childModule: misbehaving });
    const error = await p.extractPages({ bytes: text('crash') }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ExtractionAborted', reason: 'crashed', message: expect.stringMatching(/code 7/) });
  });

  it('leaves no child spinning behind when its server is killed', async () => {
    const parent = spawn(process.execPath, [fileURLToPath(new URL('./pool-parent.ts', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
    const childPid = await new Promise<number>((resolve, reject) => {
      parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
      parent.once('exit', (code) => reject(new Error(`pool parent exited with ${code}`)));
    });
    expect(gone(childPid)).toBe(false);
    parent.kill('SIGKILL');
    // The child is stuck in a synchronous loop, so only its watch thread can notice.
    await expect.poll(() => gone(childPid), { timeout: 15_000 }).toBe(true);
  });

  it('runs at most `size` children, and a cancelled extraction is extraction_timeout', async () => {
    const p = pool({ size: 2, childModule: misbehaving, limits: { timeoutMs: 60_000 } });
    const controller = new AbortController();
    const stuck = [p.extractPages({ bytes: text('hang'), signal: controller.signal }), p.extractPages({ bytes: text('hang'), signal: controller.signal })];
    const queued = p.extractPages({ bytes: text('pid') });
    await expect.poll(() => p.pids.length).toBe(2);
    controller.abort();
    expect(await Promise.all(stuck)).toEqual([
      expect.objectContaining({ ok: false, reason_code: 'extraction_timeout' }),
      expect.objectContaining({ ok: false, reason_code: 'extraction_timeout' }),
    ]);
    expect(await queued).toMatchObject({ ok: true });
    expect(p.pids.length).toBeLessThanOrEqual(2);
  });
});
