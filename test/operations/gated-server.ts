import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GatedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** performance.now() when the request arrived and when its answer was sent. */
  startedAt: number;
  answeredAt: number | undefined;
}

export interface GatedServer {
  url(path: string): string;
  requests: GatedRequest[];
  /** True once the gate opened: `holdUntil` gated requests were held at the same time. */
  opened(): boolean;
  close(): Promise<void>;
}

/**
 * A loopback HTTP server whose gated requests get no answer until `holdUntil` of them are waiting
 * at once; then all are answered and the gate stays open. Used to prove that work was shared: if
 * one worker can hold at most N-1 such requests at a time (its per-endpoint limit, or one document
 * fetch at a time), the gate only opens when another worker joins, and the test cannot pass by luck.
 */
export async function startGatedServer(options: {
  gated: (path: string) => boolean;
  holdUntil: number;
  answer: (path: string) => { status: number; body: string | Buffer; type?: string };
}): Promise<GatedServer> {
  const requests: GatedRequest[] = [];
  let held: (() => void)[] = [];
  let open = false;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const record: GatedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        startedAt: performance.now(),
        answeredAt: undefined,
      };
      requests.push(record);
      const send = () => {
        const { status, body, type = 'text/plain' } = options.answer(record.path);
        record.answeredAt = performance.now();
        if (!res.destroyed) res.writeHead(status, { 'content-type': type }).end(body);
      };
      if (open || !options.gated(record.path)) return send();
      held.push(send);
      if (held.length >= options.holdUntil) {
        open = true;
        const waiting = held;
        held = [];
        for (const release of waiting) release();
      }
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    requests,
    opened: () => open,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
