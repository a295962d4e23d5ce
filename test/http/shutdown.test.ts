import { expect, it } from 'vitest';
import { createTestApp } from '../support/harness.ts';

/** What a new request gets while the server closes: a 503, or a refused connection. */
async function probe(base: string): Promise<string> {
  return fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2000) }).then((r) => String(r.status), (e: Error) => `refused ${e.name}`);
}

// Regression: close() used to wait out the 72 s keep-alive timeout of a client whose request was in flight.
// No fixed sleeps: the handler tells the test when the request is in flight, and the test polls until
// new requests are turned away (a slow machine only makes the loop run longer).
it('finishes requests in flight when it closes, refuses new ones, and lets keep-alive clients go', async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const inHandler = new Promise<void>((resolve) => (arrived = resolve));
  const t = await createTestApp('embedded', {
    routes: (app) => {
      app.get('/api/v1/_probe/slow', { config: { auth: 'public' } }, async () => {
        arrived();
        await gate;
        return { finished: true };
      });
    },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const inFlight = fetch(`${base}/api/v1/_probe/slow`);
  await inHandler;
  const closing = t.app.close();
  let late = await probe(base);
  for (let i = 0; i < 100 && !/^(503|refused)/.test(late); i++) late = await probe(base);
  expect(late).toMatch(/^(503|refused)/);
  release();
  const res = await inFlight;
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ finished: true });
  await closing;
  await t.close();
});
