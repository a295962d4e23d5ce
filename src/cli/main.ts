import { loadConfig, ConfigError } from '../config.ts';
import { createLogger } from '../logging.ts';
import { openRuntime } from '../runtime.ts';
import { EmbeddedDatabaseBusyError } from '../storage/database.ts';
import { embeddedOwner } from '../storage/embedded-lock.ts';
import { executeAdminCommand, findAdminCommand, parseAdminCommand, type CommandOutcome } from './admin-commands.ts';
import { adminSocketPath, runThroughAdminSocket } from './admin-socket.ts';
import { cliError, printResult } from './output.ts';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const USAGE = `usage: dossier <command> [--json]

  serve [--no-worker]     the API and an in-process worker
  worker                  background jobs only (needs PostgreSQL when a server also runs)
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

async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const words = argv.filter((a) => a !== '--json');
  const [command] = words;

  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    if (json) printResult({ usage: USAGE }, true);
    else process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command === 'serve') {
    const unknown = words.slice(1).filter((w) => w !== '--no-worker');
    if (unknown.length > 0) return report(2, cliError('invalid_request', `unknown option ${unknown[0]}; usage: dossier serve [--no-worker]`), json);
    // serve, worker and restore are imported when run: the HTTP server and web faces are half of
    // an admin command's start-up otherwise (6.5 s of 9 s under load), and tests run hundreds.
    const { serve } = await import('./commands/serve.ts');
    await serve({ json, worker: !words.includes('--no-worker') });
    return -1;
  }
  if (command === 'worker') {
    const { runWorker } = await import('./commands/worker.ts');
    await runWorker({ json });
    return -1;
  }
  if (command === 'listen') {
    const { listen } = await import('./commands/listen.ts');
    return listen(words.slice(1), { json, adminCommand: runAdminCommand });
  }
  if (command === 'restore') {
    const { restoreBackup } = await import('./commands/backup.ts');
    const outcome = await restoreBackup(words.slice(1));
    return report(outcome.exitCode, outcome.result, json);
  }
  if (command === 'trigger') {
    // It runs two admin commands (make the case, then read its events until it settles), printing as it goes.
    const { runTrigger } = await import('./trigger.ts');
    return runTrigger(words, json);
  }
  if (!findAdminCommand(words)) return report(2, cliError('invalid_request', `unknown command "${words.join(' ')}"\n${USAGE}`), json);
  const parsed = parseAdminCommand(words);
  if (!('command' in parsed)) return report(parsed.exitCode, parsed.result, json);

  // A file named on the command line is read by whichever process runs the command (maybe the
  // server, through the admin socket), so it must not depend on this process's working directory.
  for (const flag of ['--file', '--out']) {
    const at = words.indexOf(flag);
    if (at !== -1 && words[at + 1] !== undefined) words[at + 1] = resolve(words[at + 1]!);
  }
  const outcome = await runAdminCommand(words);
  return report(outcome.exitCode, outcome.result, json);
}

/**
 * On PostgreSQL the CLI connects directly. On the embedded database only one process may open the
 * files: if a server owns them, the command runs inside it through the admin socket.
 */
async function runAdminCommand(words: string[]): Promise<CommandOutcome> {
  const config = loadConfig();
  if (!config.databaseUrl) {
    const owner = embeddedOwner(config.dataDir);
    if (owner !== undefined) return throughServer(config.dataDir, owner, words);
  }
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  let runtime;
  try {
    runtime = await openRuntime(config, { logger });
  } catch (err) {
    if (err instanceof EmbeddedDatabaseBusyError) return throughServer(config.dataDir, err.ownerPid, words);
    throw err;
  }
  try {
    return await executeAdminCommand(runtime, words);
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

function report(exitCode: number, result: object, json: boolean): number {
  if (exitCode === 0) printResult(result, json);
  else if (json) printResult(result, true);
  else printResult(result, false, process.stderr);
  return exitCode;
}

main(process.argv.slice(2)).then(
  (code) => {
    // -1: a long-running command (serve, worker) that exits on its own signal handling.
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    const json = process.argv.includes('--json');
    const message = err instanceof ConfigError ? err.message : err instanceof EmbeddedDatabaseBusyError ? `${err.message}: stop it first, or use PostgreSQL (DATABASE_URL) to run several processes` : `unexpected failure: ${(err as Error).message}`;
    if (!(err instanceof ConfigError) && !(err instanceof EmbeddedDatabaseBusyError)) process.stderr.write(`${(err as Error).stack}\n`);
    report(1, cliError(err instanceof ConfigError ? 'invalid_request' : 'internal_error', message), json);
    process.exitCode = 1;
  },
);
