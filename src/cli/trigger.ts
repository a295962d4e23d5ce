import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../config.ts';
import { caseJobsTask, CASE_ENGINE_HANDLERS, CASE_ENGINE_OPTIONS } from '../jobs/case-jobs.ts';
import { Worker } from '../jobs/worker.ts';
import { createLogger } from '../logging.ts';
import { openRuntime } from '../runtime.ts';
import { EmbeddedDatabaseBusyError } from '../storage/database.ts';
import { embeddedOwner } from '../storage/embedded-lock.ts';
import { executeAdminCommand, parseAdminCommand, type CommandOutcome } from './admin-commands.ts';
import { adminSocketPath, runThroughAdminSocket } from './admin-socket.ts';
import type { CommandLineIo } from './output.ts';
import { cliError, printResult, report } from './output.ts';

/** Runtime statuses a case passes through on its own; any other is where it waits for someone. */
const MOVING = new Set(['processing', 'gate_ready', 'gate_evaluating']);
const POLL_MS = 300;
const DEFAULT_TIMEOUT_SECONDS = 60;

interface CaseEvent {
  event_id: string;
  event_type: string;
  cursor: number;
  created_at: string;
  data: Record<string, unknown>;
}

interface Runner {
  run(argv: readonly string[]): Promise<CommandOutcome>;
  /** Set when this process reads the document itself (no server owns the work). */
  local: boolean;
  close(): Promise<void>;
}

/**
 * `dossier trigger CASE_TYPE OUTCOME`: makes the case (admin command `trigger`), then prints
 * each of its events as it happens (admin command `case events`, polled) until the case stops
 * moving (it waits for an operator, the applicant, or is complete) or `--timeout` seconds pass.
 * One line per event; with --json one JSON object per line. While a server owns the embedded
 * database both commands run inside it through the admin socket and its worker reads the
 * document; otherwise this process runs the case jobs itself meanwhile, so a trigger never waits
 * on a worker that is not there.
 */
export async function runTrigger(words: string[], json: boolean, io: CommandLineIo): Promise<number> {
  const fail = (outcome: CommandOutcome) => report(outcome.exitCode, outcome.result, json, io);
  const emit = (object: object, line: string) => (json ? printResult(object, true, io.stdout) : io.stdout.write(`${line}\n`));
  const parsed = parseAdminCommand(words);
  if (!('command' in parsed)) return fail(parsed);
  const timeoutText = parsed.values.timeout;
  const timeoutSeconds = timeoutText === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(timeoutText);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) return fail({ exitCode: 2, result: cliError('invalid_request', '--timeout needs a number of seconds') });

  const runner = await openRunner(io);
  try {
    const created = await runner.run(words);
    if (created.exitCode !== 0) return fail(created);
    const made = created.result as { org_id: string; case_id: string; document_id: string; document_url: string };
    emit({ type: 'trigger.created', ...made, read_by: runner.local ? 'this process' : 'the server' }, `${made.case_id} created from ${made.document_url} (document ${made.document_id}, workspace ${made.org_id})`);

    const deadline = Date.now() + timeoutSeconds * 1000;
    let cursor = 0;
    for (;;) {
      const page = await runner.run(['case', 'events', made.case_id, '--org', made.org_id, '--env', 'test', '--after', String(cursor)]);
      if (page.exitCode !== 0) return fail(page);
      const { events, next_cursor, has_more, runtime_status, why_here_code } = page.result as { events: CaseEvent[]; next_cursor: number; has_more: boolean; runtime_status: string; why_here_code: string };
      for (const event of events) emit({ type: 'case.event', case_id: made.case_id, ...event }, eventLine(event));
      cursor = next_cursor;
      if (has_more) continue;
      if (!MOVING.has(runtime_status)) {
        emit({ type: 'trigger.settled', case_id: made.case_id, runtime_status, why_here_code }, `${made.case_id} settled: ${runtime_status} (${why_here_code})`);
        return 0;
      }
      if (Date.now() > deadline) {
        return fail({ exitCode: 1, result: cliError('timeout', `${made.case_id} is still ${runtime_status} after ${timeoutSeconds} s${runner.local ? '' : '; is the server\'s worker running?'}`) });
      }
      await sleep(POLL_MS);
    }
  } finally {
    await runner.close();
  }
}

function eventLine(event: CaseEvent): string {
  const data = Object.entries(event.data)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${event.created_at}  ${event.event_type.padEnd(24)} ${event.event_id}  ${data}`;
}

/** As command-line.ts's runAdminCommand decides: inside the server that owns the embedded database, else here with a worker. */
async function openRunner(io: CommandLineIo): Promise<Runner> {
  const config = loadConfig(io.env);
  const socket = (): Runner => {
    if (!existsSync(adminSocketPath(config.dataDir))) throw new EmbeddedDatabaseBusyError(embeddedOwner(config.dataDir) ?? 0);
    return { local: false, run: (argv) => runThroughAdminSocket(config.dataDir, argv), close: async () => {} };
  };
  if (!config.databaseUrl && embeddedOwner(config.dataDir) !== undefined) return socket();
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, io.stderr);
  let runtime;
  try {
    runtime = await openRuntime(config, { logger });
  } catch (err) {
    if (err instanceof EmbeddedDatabaseBusyError) return socket();
    throw err;
  }
  // Only the case jobs (reading documents, gates): webhooks and connector calls stay queued for
  // the server or worker that owns them.
  const worker = new Worker(runtime.ctx, [caseJobsTask(CASE_ENGINE_HANDLERS, CASE_ENGINE_OPTIONS)]);
  worker.start();
  const ready = runtime;
  return {
    local: true,
    run: (argv) => executeAdminCommand(ready, argv, { stderr: io.stderr }),
    async close() {
      await worker.stop();
      await ready.close();
    },
  };
}
