import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { ConfigError, loadConfig } from '../config.ts';
import { createLogger } from '../logging.ts';
import { openRuntime } from '../runtime.ts';
import { EmbeddedDatabaseBusyError } from '../storage/database.ts';
import { embeddedOwner } from '../storage/embedded-lock.ts';
import { executeAdminCommand, findAdminCommand, parseAdminCommand, type CommandOutcome } from './admin-commands.ts';
import { adminSocketPath, runThroughAdminSocket } from './admin-socket.ts';
import { cliError, printResult, report, type CliError, type CommandLineIo } from './output.ts';

export const USAGE = `usage: dossier <command> [--json]

  serve [--no-worker]     the API and an in-process worker
  worker [--concurrency N]   background jobs only (needs PostgreSQL when a server also runs); N processes, a worker per core
  migrate                 apply pending database migrations
  org create --name NAME [--billing active|inactive] [--accept-legal]
  org update ORG_ID [--billing active|inactive] [--accept-legal] [--live-usage-cap N|none]
  key create --org ORG_ID --env test|live --scopes a,b|'*' [--name N] [--expires-in 30d] [--rate-limit N]
  key revoke KEY_ID
  case-type put --org ORG_ID [--env test|live] --file FILE.json
  case-type list --org ORG_ID --env test|live
  case-type show CASE_TYPE_ID --org ORG_ID --env test|live
  endpoint add --org ORG_ID --env test|live --url URL --events e1,e2|'*'   (prints the signing secret once)
  endpoint list --org ORG_ID --env test|live
  endpoint disable ENDPOINT_ID
  endpoint enable ENDPOINT_ID
  endpoint rotate-secret ENDPOINT_ID   (the old secret keeps signing for 24 hours)
  notifications list --org ORG_ID --env test|live [--limit N]
  operator create --org ORG_ID --email E --password P [--role admin|reviewer]
  listen --forward-to URL [--events e1,e2] [--api-key sk_test_… --base-url URL] [--org ORG_ID]
                          test deliveries forwarded to a URL on this machine, signed as an endpoint gets them
  key listen [--org ORG_ID]   a test key with the webhooks:listen scope (what listen uses locally)
  demo                    the demo workspace and its test key (created once)
  trigger CASE_TYPE OUTCOME [--org ORG_ID] [--kind KIND] [--timeout S]   a test case from a sample document, then its events
                          (OUTCOME: all_facts, missing_fact, gate_mismatch, unreadable, slow; no --org: the demo workspace)
  case events CASE_ID --org ORG_ID --env test|live [--after CURSOR]
  backup --out FILE       a consistent copy of the embedded database (while a server runs, too)
  restore --in FILE [--force]   a backup into DATA_DIR (empty, unless --force; no server running)
  documents migrate --to s3|database [--batch N]   move document bytes between the database and DOCUMENT_STORE's bucket (while serving)`;

/**
 * `serve` and `worker` run until a signal and exit the process when they stop (commands/shutdown.ts):
 * main.ts runs them, never a caller that shares its process. `listen` runs here, and a wrong
 * argument ends it at once; once connected it stops only on SIGINT or SIGTERM, so tests that keep
 * it running start it as a process.
 */
const PROCESS_COMMANDS: ReadonlySet<string> = new Set(['serve', 'worker']);

/** Runs one command line to its exit code; what it prints goes to `io`, not to the process's streams. */
export async function runCommandLine(argv: readonly string[], io: CommandLineIo): Promise<number> {
  const json = argv.includes('--json');
  try {
    return await dispatch(argv.filter((a) => a !== '--json'), json, io);
  } catch (err) {
    const failure = expectedFailure(err);
    if (failure === undefined) throw err;
    return report(1, failure, json, io);
  }
}

/** The failures a command reports in a sentence (bad configuration, a database owned elsewhere); anything else is a bug. */
export function expectedFailure(err: unknown): CliError | undefined {
  if (err instanceof ConfigError) return cliError('invalid_request', err.message);
  if (err instanceof EmbeddedDatabaseBusyError) {
    return cliError('internal_error', `${err.message}: stop it first, or use PostgreSQL (DATABASE_URL) to run several processes`);
  }
  return undefined;
}

async function dispatch(words: string[], json: boolean, io: CommandLineIo): Promise<number> {
  const [command] = words;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    if (json) printResult({ usage: USAGE }, true, io.stdout);
    else io.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  if (PROCESS_COMMANDS.has(command)) {
    return report(2, cliError('invalid_request', `dossier ${command} runs as a process of its own: start it with \`dossier ${command}\``), json, io);
  }
  if (command === 'listen') {
    const { listen } = await import('./commands/listen.ts');
    return listen(words.slice(1), { json, env: io.env, stdout: io.stdout, stderr: io.stderr, adminCommand: (argv) => runAdminCommand(argv, io) });
  }
  if (command === 'restore') {
    // Imported when run, as serve and worker are: an admin command's start-up is what the CLI costs.
    const { restoreBackup } = await import('./commands/backup.ts');
    const outcome = await restoreBackup(words.slice(1), loadConfig(io.env));
    return report(outcome.exitCode, outcome.result, json, io);
  }
  if (command === 'trigger') {
    // It runs two admin commands (make the case, then read its events until it settles), printing as it goes.
    const { runTrigger } = await import('./trigger.ts');
    return runTrigger(words, json, io);
  }
  if (!findAdminCommand(words)) return report(2, cliError('invalid_request', `unknown command "${words.join(' ')}"\n${USAGE}`), json, io);
  const parsed = parseAdminCommand(words);
  if (!('command' in parsed)) return report(parsed.exitCode, parsed.result, json, io);

  // A file named on the command line is read by whichever process runs the command (maybe the
  // server, through the admin socket), so it must not depend on this process's working directory.
  for (const flag of ['--file', '--out']) {
    const at = words.indexOf(flag);
    if (at !== -1 && words[at + 1] !== undefined) words[at + 1] = resolve(words[at + 1]!);
  }
  const outcome = await runAdminCommand(words, io);
  return report(outcome.exitCode, outcome.result, json, io);
}

/**
 * On PostgreSQL the CLI connects directly. On the embedded database only one process may open the
 * files: if a server owns them, the command runs inside it through the admin socket. Either way
 * the database is closed before this returns, which releases the embedded lock for the next command.
 */
async function runAdminCommand(words: string[], io: CommandLineIo): Promise<CommandOutcome> {
  const config = loadConfig(io.env);
  if (!config.databaseUrl) {
    const owner = embeddedOwner(config.dataDir);
    if (owner !== undefined) return throughServer(config.dataDir, owner, words);
  }
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, io.stderr);
  let runtime;
  try {
    runtime = await openRuntime(config, { logger });
  } catch (err) {
    if (err instanceof EmbeddedDatabaseBusyError) return throughServer(config.dataDir, err.ownerPid, words);
    throw err;
  }
  try {
    return await executeAdminCommand(runtime, words, { stderr: io.stderr });
  } finally {
    await runtime.close();
  }
}

function throughServer(dataDir: string, ownerPid: number, words: string[]): Promise<CommandOutcome> | CommandOutcome {
  if (!existsSync(adminSocketPath(dataDir))) {
    return {
      exitCode: 1,
      result: cliError(
        'precondition_required',
        `the embedded database in ${dataDir} is in use by process ${ownerPid}, which offers no admin socket; stop it or use PostgreSQL (DATABASE_URL)`,
      ),
    };
  }
  return runThroughAdminSocket(dataDir, words);
}
