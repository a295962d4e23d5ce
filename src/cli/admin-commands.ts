import { parseArgs } from 'node:util';
import { z } from 'zod';
import type { Runtime } from '../runtime.ts';
import { cliError } from './output.ts';
import { BACKUP_COMMANDS } from './commands/backup.ts';
import { CASE_TYPE_COMMANDS } from './commands/case-type.ts';
import { UsageError, type AdminCommand, type CommandOutcome, type CommandOutput } from './commands/command.ts';
import { DEMO_COMMANDS } from './commands/demo.ts';
import { DOCUMENT_COMMANDS } from './commands/documents.ts';
import { ENDPOINT_COMMANDS } from './commands/endpoint.ts';
import { KEY_COMMANDS } from './commands/key.ts';
import { MIGRATE_COMMANDS } from './commands/migrate.ts';
import { OPERATOR_COMMANDS } from './commands/operator.ts';
import { ORG_COMMANDS } from './commands/org.ts';
import { TRIGGER_COMMANDS } from './commands/trigger.ts';

/**
 * The admin commands, one file per noun under `commands/` (see `commands/command.ts` for the
 * shape), and the runner that parses argv against a command's options and runs it. The same
 * runner serves the CLI in-process and the admin socket inside a server.
 */
export const ADMIN_COMMANDS: readonly AdminCommand[] = [
  ...CASE_TYPE_COMMANDS,
  ...MIGRATE_COMMANDS,
  ...ORG_COMMANDS,
  ...KEY_COMMANDS,
  ...DEMO_COMMANDS,
  ...ENDPOINT_COMMANDS,
  ...OPERATOR_COMMANDS,
  ...BACKUP_COMMANDS,
  ...TRIGGER_COMMANDS,
  ...DOCUMENT_COMMANDS,
];

export type { CommandOutcome };

export function findAdminCommand(argv: readonly string[]): AdminCommand | undefined {
  return ADMIN_COMMANDS.find((c) => c.path.every((word, i) => argv[i] === word));
}

interface ParsedCommand {
  command: AdminCommand;
  values: Record<string, unknown>;
  positionals: string[];
}

/** Parses argv against the command's options: a usage problem is found before any database is opened. */
export function parseAdminCommand(argv: readonly string[]): ParsedCommand | CommandOutcome {
  const command = findAdminCommand(argv);
  if (!command) return { exitCode: 2, result: cliError('invalid_request', `unknown command: ${argv.join(' ')}`) };
  try {
    const { values, positionals } = parseArgs({
      args: argv.slice(command.path.length).filter((a) => a !== '--json'),
      options: command.options,
      allowPositionals: true,
      strict: true,
    });
    const expected = command.positionals ?? 0;
    if (positionals.length !== expected) {
      throw new UsageError(`expected ${expected} argument${expected === 1 ? '' : 's'}; usage: ${command.usage}`);
    }
    command.flags?.parse(values);
    return { command, values, positionals };
  } catch (err) {
    return usageOutcome(err, command);
  }
}

function usageOutcome(err: unknown, command: AdminCommand): CommandOutcome {
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    return { exitCode: 2, result: cliError('invalid_request', `${(err as Error).message}; usage: ${command.usage}`) };
  }
  if (err instanceof z.ZodError) {
    return { exitCode: 2, result: cliError('invalid_request', err.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')) };
  }
  throw err;
}

/** Where a command run without a terminal (a test, a caller in code) writes its progress: nowhere. */
const NO_TERMINAL: CommandOutput = { stderr: { write: () => true } };

/** Parses and runs one admin command; a usage problem or a domain failure becomes an error object. */
export async function executeAdminCommand(runtime: Runtime, argv: readonly string[], output: CommandOutput = NO_TERMINAL): Promise<CommandOutcome> {
  const parsed = parseAdminCommand(argv);
  if (!('command' in parsed)) return parsed;
  try {
    const result = await parsed.command.run(runtime.ctx, parsed.values, parsed.positionals, runtime, output);
    return { exitCode: 'error' in result ? 1 : 0, result };
  } catch (err) {
    return usageOutcome(err, parsed.command);
  }
}
