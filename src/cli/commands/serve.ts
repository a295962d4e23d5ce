import type { Server } from 'node:http';
import { loadConfig } from '../../config.ts';
import { buildServer } from '../../http/server.ts';
import { jobTasks } from '../../jobs/tasks.ts';
import { Worker } from '../../jobs/worker.ts';
import { createLogger } from '../../logging.ts';
import { openRuntime } from '../../runtime.ts';
import { describeDemo } from './demo.ts';
import { startAdminSocket, stopAdminSocket } from '../admin-socket.ts';
import { printResult } from '../output.ts';
import { onShutdownSignal } from './shutdown.ts';

/**
 * `dossier serve [--no-worker]`: the API (and later the applicant app and dashboard) plus an
 * in-process worker. On the embedded database the first start also creates the demo workspace
 * and prints its key with a curl line that works.
 */
export async function serve(args: { json: boolean; worker: boolean }): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const runtime = await openRuntime(config, { logger });
  const { ctx } = runtime;
  const demo = await describeDemo(ctx);

  const app = await buildServer(ctx);
  const worker = new Worker(ctx, jobTasks());
  let adminSocket: Server | undefined;
  try {
    await app.listen({ port: config.port, host: config.host });
    if (args.worker) worker.start();
    if (runtime.database.kind === 'embedded') adminSocket = await startAdminSocket(runtime, config.dataDir);
  } catch (err) {
    await app.close();
    await runtime.close();
    throw err;
  }

  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const banner = {
    status: 'listening',
    url: `http://${config.host}:${port}`,
    base_url: config.baseUrl,
    database: runtime.database.kind,
    worker: args.worker,
    pid: process.pid,
    demo: demo.created
      ? { org_id: demo.org_id, key: demo.key, curl: demo.curl, dashboard: demo.dashboard, applicant_link: demo.applicant_link }
      : { org_id: demo.org_id, applicant_link: demo.applicant_link, note: 'the demo workspace exists: `npm run dossier -- demo` prints its key again' },
  };
  if (args.json) printResult(banner, true);
  else printBanner(banner, demo.created);

  onShutdownSignal(logger, async () => {
    // Stop taking requests and let those in flight finish, then drain the worker, then the pool.
    await app.close();
    await worker.stop();
    if (adminSocket) await stopAdminSocket(adminSocket, config.dataDir);
    await runtime.close();
  });
}

function printBanner(banner: { url: string; database: string; demo: Record<string, unknown> }, created: boolean): void {
  const lines = [`Dossier is listening on ${banner.url} (${banner.database} database)`];
  if (created) {
    lines.push(
      '',
      'Created the demo workspace. Its test key (shown now; `npm run dossier -- demo` shows it again):',
      `  ${String(banner.demo.key)}`,
      '',
      'Try it:',
      `  ${String(banner.demo.curl)}`,
    );
    const dashboard = banner.demo.dashboard as { url: string; email: string; password: string | null } | undefined;
    if (dashboard?.password) {
      lines.push('', 'Sign in to the dashboard:', `  ${dashboard.url}`, `  email ${dashboard.email}   password ${dashboard.password}`);
    }
  } else {
    lines.push(`Demo workspace ${String(banner.demo.org_id)}: \`npm run dossier -- demo\` prints its key and a curl line.`);
  }
  if (typeof banner.demo.applicant_link === 'string') {
    lines.push('', 'Open the applicant flow of a demo session in your browser (valid for 24 hours):', `  ${banner.demo.applicant_link}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
