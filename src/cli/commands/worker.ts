import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig } from '../../config.ts';
import { buildMetricsServer } from '../../http/metrics-server.ts';
import { jobTasks } from '../../jobs/tasks.ts';
import { Worker } from '../../jobs/worker.ts';
import { createLogger } from '../../logging.ts';
import { openRuntime } from '../../runtime.ts';
import type { CommandLineIo } from '../output.ts';
import { printResult } from '../output.ts';
import { onShutdownSignal } from './shutdown.ts';
import { superviseWorkers, WORKER_INDEX_ENV } from './worker-processes.ts';

/**
 * `dossier worker [--concurrency N]`: background jobs only. Several may run against one
 * PostgreSQL; with N (or WORKER_PROCESSES) above 1 this process supervises N of them
 * (`worker-processes.ts`). With METRICS_TOKEN set it also listens on HOST:PORT for /metrics and
 * the health probes (among supervised workers, the first only).
 */
export async function runWorker(args: { json: boolean; concurrency?: number }, io: CommandLineIo): Promise<void> {
  const config = loadConfig(io.env);
  const logger = createLogger(config.logLevel);
  const processes = args.concurrency ?? config.workerProcesses;
  if (processes > 1) {
    if (!config.databaseUrl) throw new ConfigError('several worker processes need PostgreSQL (DATABASE_URL): the embedded database has one process');
    return superviseWorkers({ json: args.json, processes }, io, logger);
  }
  const runtime = await openRuntime(config, { logger });
  // A supervised worker: its supervisor gone (the IPC channel closed), it stops as on SIGTERM.
  if (process.send) process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  const index = io.env[WORKER_INDEX_ENV];
  let metricsServer: FastifyInstance | undefined;
  let url: string | undefined;
  if (config.metricsToken && (index === undefined || index === '0')) {
    try {
      metricsServer = await buildMetricsServer(runtime.ctx);
      await metricsServer.listen({ port: config.port, host: config.host });
    } catch (err) {
      await metricsServer?.close();
      await runtime.close();
      throw err;
    }
    const address = metricsServer.server.address();
    url = `http://${config.host}:${typeof address === 'object' && address ? address.port : config.port}`;
  }
  const worker = new Worker(runtime.ctx, jobTasks());
  worker.start();
  printResult({ status: 'running', database: runtime.database.kind, tasks: worker.taskNames, pid: process.pid, ...(url ? { url } : {}) }, args.json, io.stdout);
  onShutdownSignal(logger, async () => {
    await metricsServer?.close();
    await worker.stop();
    await runtime.close();
  });
}
