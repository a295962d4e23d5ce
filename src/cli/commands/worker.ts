import { loadConfig } from '../../config.ts';
import { jobTasks } from '../../jobs/tasks.ts';
import { Worker } from '../../jobs/worker.ts';
import { createLogger } from '../../logging.ts';
import { openRuntime } from '../../runtime.ts';
import { printResult } from '../output.ts';
import { onShutdownSignal } from './shutdown.ts';

/** `dossier worker`: background jobs only. Several may run against one PostgreSQL. */
export async function runWorker(args: { json: boolean }): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const runtime = await openRuntime(config, { logger });
  const worker = new Worker(runtime.ctx, jobTasks());
  worker.start();
  printResult({ status: 'running', database: runtime.database.kind, tasks: worker.taskNames, pid: process.pid }, args.json);
  onShutdownSignal(logger, async () => {
    await worker.stop();
    await runtime.close();
  });
}
