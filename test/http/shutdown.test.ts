import { expect, it } from 'vitest';
import { createTestApp } from '../support/harness.ts';

// Regression: close() used to wait out the 72 s keep-alive timeout of a client whose request was in flight.
it('finishes requests in flight when it closes, refuses new ones, and lets keep-alive clients go', async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const t = await createTestApp('embedded', {
    routes: (app) => {
      app.get('/api/v1/_probe/slow', async () => {
        await gate;
        return { finished: true };
      });
    },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const inFlight = fetch(`${base}/api/v1/_probe/slow`);
  await new Promise((r) => setTimeout(r, 50));
  const closing = t.app.close();
  await new Promise((r) => setTimeout(r, 50));
  const late = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2000) }).then((r) => r.status, (e: Error) => `refused ${e.name}`);
  expect(String(late)).toMatch(/^(503|refused)/);
  release();
  const res = await inFlight;
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ finished: true });
  await closing;
  await t.close();
});
