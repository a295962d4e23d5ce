import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../config.ts';
import { buildMetricsServer } from '../../http/metrics-server.ts';
import { jobTasks } from '../../jobs/tasks.ts';
import { Worker } from '../../jobs/worker.ts';
import { createLogger } from '../../logging.ts';
import { openRuntime } from '../../runtime.ts';
import type { CommandLineIo } from '../output.ts';
import { printResult } from '../output.ts';
import { onShutdownSignal } from './shutdown.ts';

/**
 * `dossier worker`: background jobs only. Several may run against one PostgreSQL. With
 * METRICS_TOKEN set it also listens on HOST:PORT for /metrics and the health probes.
 */
export async function runWorker(args: { json: boolean }, io: CommandLineIo): Promise<void> {
  const config = loadConfig(io.env);
  const logger = createLogger(config.logLevel);
  const runtime = await openRuntime(config, { logger });
  let metricsServer: FastifyInstance | undefined;
  let url: string | undefined;
  if (config.metricsToken) {
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
