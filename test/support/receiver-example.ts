import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { until } from './harness.ts';

const ROOT = join(import.meta.dirname, '../..');
const RECEIVER = join(ROOT, 'examples/receiver/src/server.ts');

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface RunningReceiver {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Runs examples/receiver as an integrator would (`node src/server.ts`), from the client's source. */
export async function startReceiverExample(env: Record<string, string>): Promise<RunningReceiver> {
  const child = spawn(process.execPath, ['--conditions=dossier-source', RECEIVER], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  await until(() => {
    if (child.exitCode !== null) throw new Error(`receiver exited with ${child.exitCode}:\n${output}`);
    return output.includes('Server listening at');
  }, 30_000);
  return {
    url: `http://127.0.0.1:${env.PORT}/webhooks/dossier`,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
