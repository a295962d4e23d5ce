import type { Server } from 'node:http';
import { loadConfig } from '../../config.ts';
import { buildServer } from '../../http/server.ts';
import { jobTasks } from '../../jobs/tasks.ts';
import { Worker } from '../../jobs/worker.ts';
import { createLogger } from '../../logging.ts';
import { openRuntime } from '../../runtime.ts';
import { describeDemo } from './demo.ts';
import { startAdminSocket, stopAdminSocket } from '../admin-socket.ts';
import type { CommandLineIo } from '../output.ts';
import { printResult, type Output } from '../output.ts';
import { onShutdownSignal } from './shutdown.ts';

/**
 * `dossier serve [--no-worker]`: the API (and later the applicant app and dashboard) plus an
 * in-process worker. On the embedded database the first start (a new database) also creates the
 * demo workspace and prints its key with a curl line that works; later starts and PostgreSQL
 * deployments print neither (`dossier demo` does, on request).
 */
export async function serve(args: { json: boolean; worker: boolean }, io: CommandLineIo): Promise<void> {
  const config = loadConfig(io.env);
  const logger = createLogger(config.logLevel);
  const runtime = await openRuntime(config, { logger });
  const { ctx } = runtime;
  // The demo workspace and its `*` test key are made and printed only when the embedded database
  // was created by this start: server output ends up in logs, and a PostgreSQL deployment is not a demo.
  const firstStart = runtime.database.kind === 'embedded' && runtime.migrations.already_applied.length === 0;
  const demo = firstStart ? await describeDemo(ctx) : undefined;

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
    demo: demo
      ? { org_id: demo.org_id, key: demo.key, curl: demo.curl, dashboard: demo.dashboard, applicant_link: demo.applicant_link }
      : { note: '`npm run dossier -- demo` creates the demo workspace if needed and prints its key' },
  };
  // Before the banner: whoever reads it (a supervisor, a test) may signal at once.
  onShutdownSignal(logger, async () => {
    // Stop taking requests and let those in flight finish, then drain the worker, then the pool.
    await app.close();
    await worker.stop();
    if (adminSocket) await stopAdminSocket(adminSocket, config.dataDir);
    await runtime.close();
  });
  if (args.json) printResult(banner, true, io.stdout);
  else printBanner(banner, demo !== undefined, io.stdout);
}

function printBanner(banner: { url: string; database: string; demo: Record<string, unknown> }, created: boolean, out: Output): void {
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
    const dashboard = banner.demo.dashboard as { url: string; email: string; password: string | null; case_url: string | null } | undefined;
    if (dashboard?.password) {
      lines.push('', 'Sign in to the dashboard:', `  ${dashboard.url}`, `  email ${dashboard.email}   password ${dashboard.password}`);
    }
    lines.push('', 'Receive its webhooks on this machine (prints the signing secret to verify with):', '  npm run dossier -- listen --forward-to http://localhost:4567/hook');
    if (dashboard?.case_url) {
      lines.push('', 'Then review the demo case (its pay stub is read within seconds; it waits in Cases → Review):', `  ${dashboard.case_url}`);
    }
  } else {
    lines.push('A demo workspace with a test key: `npm run dossier -- demo`.');
  }
  if (typeof banner.demo.applicant_link === 'string') {
    lines.push('', 'Open the applicant flow of a demo session in your browser (valid for 24 hours):', `  ${banner.demo.applicant_link}`);
  }
  out.write(`${lines.join('\n')}\n`);
}
