import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { CommandLineIo } from '../output.ts';
import { printResult } from '../output.ts';
import { onShutdownSignal } from './shutdown.ts';

/** The variable a supervised worker is started with: its place among the N (0 serves /metrics). */
export const WORKER_INDEX_ENV = 'DOSSIER_WORKER_INDEX';

/** How long a worker that died waits before it is started again: a crash loop costs a start a second, not a spinning core. */
const RESTART_DELAY_MS = 1_000;

/**
 * `dossier worker --concurrency N` (or WORKER_PROCESSES=N), N > 1: N worker processes, a worker
 * per core, each running every job loop; this process only starts them, restarts one that dies,
 * and stops them all on SIGTERM or SIGINT. Nothing is lost when one dies, however it dies: its
 * webhook deliveries are leased by its own database sessions (advisory locks), which PostgreSQL
 * ends with the process, and the other workers claim them at once; every other job kind's lease
 * runs out. A worker whose supervisor dies (its IPC channel closes) shuts itself down.
 *
 * Prints one banner line once every worker has printed its own, with their pids.
 */
export async function superviseWorkers(args: { json: boolean; processes: number }, io: CommandLineIo, logger: Logger): Promise<void> {
  const entry = fileURLToPath(new URL('../main.ts', import.meta.url));
  const workers: (ChildProcess | undefined)[] = Array.from({ length: args.processes });
  let stopping = false;

  const start = (index: number): Promise<number> =>
    new Promise((resolve, reject) => {
      const child = fork(entry, ['worker', '--concurrency', '1', '--json'], {
        env: { ...io.env, WORKER_PROCESSES: '1', [WORKER_INDEX_ENV]: String(index) },
        stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
      });
      workers[index] = child;
      let banner = '';
      let announced = false;
      child.stdout!.on('data', (chunk: Buffer) => {
        if (announced) return void io.stdout.write(chunk.toString());
        banner += chunk.toString();
        const end = banner.indexOf('\n');
        if (end === -1) return;
        announced = true;
        resolve(child.pid!);
        if (end + 1 < banner.length) io.stdout.write(banner.slice(end + 1));
      });
      child.on('exit', (code, signal) => {
        if (!announced) reject(new Error(`worker ${index} exited before it started (${signal ?? code})`));
        if (workers[index] === child) workers[index] = undefined;
        if (stopping) return;
        logger.error({ worker: index, pid: child.pid, code, signal }, 'worker process died: starting another');
        setTimeout(() => {
          if (!stopping) start(index).catch((err: unknown) => logger.error({ err, worker: index }, 'worker process could not be started'));
        }, RESTART_DELAY_MS).unref();
      });
    });

  const stopAll = async (): Promise<void> => {
    stopping = true;
    await Promise.all(
      workers.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
  };

  let pids: number[];
  try {
    pids = await Promise.all(workers.map((_, i) => start(i)));
  } catch (err) {
    await stopAll();
    throw err;
  }
  printResult({ status: 'running', processes: args.processes, pid: process.pid, workers: pids }, args.json, io.stdout);
  onShutdownSignal(logger, stopAll);
}
