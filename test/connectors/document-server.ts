import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
export const fixtureJson = (name: string): Record<string, unknown> => JSON.parse(fixture(name)) as Record<string, unknown>;

export interface DocumentServer {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

/**
 * Serves the fixtures over loopback as a customer's developer portal would: `/docs/<file>` with
 * a content type from the extension, plus the failure modes of openapi_url (`/status/<code>`,
 * `/redirect`, `/huge`, `/slow`, `/yaml-as-text`).
 */
export async function startDocumentServer(): Promise<DocumentServer> {
  const requests: string[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    requests.push(path);
    if (path.startsWith('/docs/')) {
      const name = path.slice('/docs/'.length);
      const type = name.endsWith('.yaml') ? 'application/yaml' : 'application/json';
      res.writeHead(200, { 'content-type': type }).end(fixture(name));
    } else if (path === '/yaml-as-text') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(fixture('petstore-3.0.yaml'));
    } else if (path.startsWith('/status/')) {
      res.writeHead(Number(path.slice('/status/'.length)), { 'content-type': 'application/json' }).end('{"error":"nope"}');
    } else if (path === '/redirect') {
      res.writeHead(302, { location: '/docs/petstore-3.0.json' }).end();
    } else if (path === '/huge') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      for (let i = 0; i < 6; i++) res.write(chunk);
      res.end('{}');
    } else if (path === '/slow') {
      hanging.add(res);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
