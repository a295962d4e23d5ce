import { describe, expect, it } from 'vitest';
import { createOpenApiReader } from '../../src/jobs/openapi-reader.ts';

const misbehaving = new URL('./misbehaving-openapi-worker.ts', import.meta.url);
const outcome = (r: { ok: boolean; code?: string; message?: string }) => (r.ok ? 'ok' : `${r.code}: ${r.message}`);

/** Issue 23, item 1: what holds when a document gets past the checks of openapi-refs.ts. */
describe('regression: an OpenAPI document could stall the server (issue 23) — the reader thread', () => {
  it('terminates a worker that overruns its deadline, keeps the event loop free meanwhile, and reads the next document', async () => {
    const reader = createOpenApiReader({ workerModule: misbehaving, timeoutMs: 1_500 });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 50);
    const started = performance.now();
    const hung = await reader.read({ value: { 'x-do': 'hang' } });
    clearInterval(ticker);
    expect(outcome(hung)).toMatch(/^invalid_openapi_spec: The OpenAPI document could not be read within 1\.5 s: it is too large or too intricate to import\.$/);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(ticks).toBeGreaterThan(5);
    expect(outcome(await reader.read({ value: {} }))).toBe('ok');
  });

  it('ends a worker past its heap cap without ending the process', async () => {
    const reader = createOpenApiReader({ workerModule: misbehaving, maxHeapMb: 32, timeoutMs: 20_000 });
    expect(outcome(await reader.read({ value: { 'x-do': 'heap' } }))).toMatch(/^invalid_openapi_spec: The OpenAPI document could not be read within 32 MB of memory/);
    expect(outcome(await reader.read({ value: {} }))).toBe('ok');
  });

  it('reads at most `concurrency` documents at once and reuses a warm worker', async () => {
    const reader = createOpenApiReader({ workerModule: misbehaving, concurrency: 1, timeoutMs: 1_500 });
    const [hung, queued] = await Promise.all([reader.read({ value: { 'x-do': 'hang' } }), reader.read({ value: {} })]);
    expect(outcome(hung)).toMatch(/within 1\.5 s/);
    expect(outcome(queued)).toBe('ok');
    const title = async () => {
      const read = await reader.read({ value: {} });
      return read.ok ? read.value.title : undefined;
    };
    const first = await title();
    expect(await title()).toBe(first);
  });
});
