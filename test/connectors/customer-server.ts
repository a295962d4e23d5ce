import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CustomerRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface CustomerServer {
  url: string;
  requests: CustomerRequest[];
  /** Statuses to answer, in order; once used up, `fallback` answers. */
  script: number[];
  fallback: { status: number; body: string };
  /** How long each answer waits. */
  delayMs: number;
  /** Most requests seen in flight at once for one Idempotency-Key. */
  maxInFlightPerKey: number;
  close(): Promise<void>;
}

/** The customer's own API on loopback, as a connector calls it. */
export async function startCustomerServer(): Promise<CustomerServer> {
  const state: CustomerServer = {
    url: '',
    requests: [],
    script: [],
    fallback: { status: 201, body: JSON.stringify({ id: 'APP-1001', status: 'draft' }) },
    delayMs: 0,
    maxInFlightPerKey: 0,
    close: async () => {},
  };
  const inFlight = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const key = String(req.headers['idempotency-key'] ?? '');
      inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
      state.maxInFlightPerKey = Math.max(state.maxInFlightPerKey, inFlight.get(key)!);
      const status = state.script.shift();
      setTimeout(() => {
        inFlight.set(key, inFlight.get(key)! - 1);
        if (status !== undefined) res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'customer-internal-detail-7731' }));
        else res.writeHead(state.fallback.status, { 'content-type': 'application/json' }).end(state.fallback.body);
      }, state.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}
