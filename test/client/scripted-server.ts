import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClientClock } from '@dossier/client';

/** What the scripted server does with one request. */
export type Step =
  | { status: number; headers?: Record<string, string>; body?: unknown }
  /** Destroys the connection without answering. */
  | 'drop'
  /** Never answers (until the server closes). */
  | 'hang';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ScriptedServer {
  url: string;
  requests: RecordedRequest[];
  /** Answers the next requests with these steps, in order; past the end, the last step repeats. */
  script(...steps: Step[]): void;
  close(): Promise<void>;
}

/** A loopback HTTP server that answers from a script, recording every request it received. */
export async function startScriptedServer(): Promise<ScriptedServer> {
  let steps: Step[] = [];
  let next = 0;
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const step = steps[Math.min(next, steps.length - 1)];
      next += 1;
      if (step === undefined) throw new Error('no script');
      if (step === 'drop') return req.socket.destroy();
      if (step === 'hang') return;
      const body = step.body === undefined ? '' : typeof step.body === 'string' ? step.body : JSON.stringify(step.body);
      const type = typeof step.body === 'string' ? 'text/html' : 'application/json';
      res.writeHead(step.status, { 'content-type': type, 'x-request-id': `req_scripted_${requests.length}`, ...step.headers }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script(...s) {
      steps = s;
      next = 0;
      requests.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The catalog error envelope, as the service writes it. */
export function envelope(type: string, code: string, message = `${code} happened`, requestId = 'req_scripted') {
  return { error: { type, code, message, request_id: requestId } };
}

/** A clock that records every wait and advances instead of sleeping. */
export class RecordingClock implements ClientClock {
  readonly waits: number[] = [];
  #now: number;

  constructor(startMs: number) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.waits.push(ms);
    this.#now += ms;
  }
}
