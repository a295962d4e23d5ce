import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import type { Runtime } from '../runtime.ts';
import { executeAdminCommand, type CommandOutcome } from './admin-commands.ts';
import { cliError } from './output.ts';

/**
 * While a server owns the embedded database, CLI commands run inside it through this socket.
 * A Unix socket with mode 0600 in DATA_DIR: only the owner of the data can reach it, and no TCP
 * port is opened for administration.
 */
export function adminSocketPath(dataDir: string): string {
  return join(dataDir, 'admin.sock');
}

const MAX_REQUEST_BYTES = 64 * 1024;

export async function startAdminSocket(runtime: Runtime, dataDir: string): Promise<Server> {
  const path = adminSocketPath(dataDir);
  // We hold the database lock, so a socket file left here belongs to a dead owner.
  if (existsSync(path)) unlinkSync(path);
  const server = createServer((req, res) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      void answer(Buffer.concat(chunks).toString('utf8')).then((outcome) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(outcome));
      });
    });
  });

  async function answer(text: string): Promise<CommandOutcome> {
    try {
      const { argv } = JSON.parse(text) as { argv?: unknown };
      if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string')) {
        return { exitCode: 2, result: cliError('invalid_request', 'argv must be an array of strings') };
      }
      // Progress is drawn where the server's own stderr goes (a terminal, or nowhere).
      return await executeAdminCommand(runtime, argv, { stderr: process.stderr });
    } catch (err) {
      runtime.ctx.logger.error({ err }, 'admin command failed');
      return { exitCode: 1, result: cliError('internal_error', 'the command failed inside the server; see its log') };
    }
  }

  // The socket file is created by bind() with the process umask: under 077 it is never, even for
  // a moment, reachable by group or others (chmod after listen left that window open).
  const umask = process.umask(0o077);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
  } finally {
    process.umask(umask);
  }
  chmodSync(path, 0o600);
  return server;
}

export async function stopAdminSocket(server: Server, dataDir: string): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const path = adminSocketPath(dataDir);
  if (existsSync(path)) unlinkSync(path);
}

/** Runs a command in the server that owns the embedded database. */
export function runThroughAdminSocket(dataDir: string, argv: readonly string[]): Promise<CommandOutcome> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: adminSocketPath(dataDir), method: 'POST', path: '/run' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as CommandOutcome);
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify({ argv }));
  });
}
