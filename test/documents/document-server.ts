import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local document server on 127.0.0.1 for /process tests: path → body (or a status code). */
export async function startDocumentServer(routes: Record<string, { status?: number; body?: Buffer | string; type?: string; delayMs?: number }>) {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const route = routes[req.url ?? ''];
    const send = () => {
      if (!route) return res.writeHead(404).end('not found');
      res.writeHead(route.status ?? 200, { 'content-type': route.type ?? 'application/octet-stream' }).end(route.body ?? '');
    };
    if (route?.delayMs) setTimeout(send, route.delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
