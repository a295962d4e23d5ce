import type { ParseArgsConfig } from 'node:util';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { ENVIRONMENTS } from '../../config.ts';
import type { Result } from '../../domain/errors.ts';
import type { Runtime } from '../../runtime.ts';
import { cliError, type CliError, type Output } from '../output.ts';

/**
 * A command that acts on stored state, one file per noun under `src/cli/commands/`. It runs
 * in-process against the database, or, when a server owns the embedded database, inside that
 * server through the admin socket: the same code either way. Flags are parsed with a zod schema;
 * a ZodError or a {@link UsageError} is reported as usage (exit 2) before anything is changed.
 */
export interface AdminCommand {
  path: readonly string[];
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** The flags' schema, checked when the command line is parsed: a usage mistake is reported before any database is opened. */
  flags?: z.ZodType;
  positionals?: number;
  run(ctx: AppContext, values: Record<string, unknown>, positionals: string[], runtime: Runtime, output: CommandOutput): Promise<object>;
}

/**
 * What a command may write while it runs, besides its result: a progress bar on stderr when that
 * is a terminal. The result itself is returned, and printed by whoever ran the command.
 */
export interface CommandOutput {
  stderr: Output;
}

export interface CommandOutcome {
  exitCode: number;
  result: object;
}

/** A problem with how the command was called, found without a zod schema (a file that cannot be read). */
export class UsageError extends Error {}

/** A domain failure becomes the CLI's error object (exit 1); a success is printed as it is. */
export function reported<T extends object>(result: Result<T>): T | CliError {
  return result.ok ? result.value : cliError(result.code, result.message);
}

export const orgFlag = z.string({ error: '--org is required' }).trim().min(1, '--org is required');
export const envFlag = z.enum(ENVIRONMENTS, { error: '--env must be test or live' });
export const orgAndEnv = { org: orgFlag, env: envFlag };

/** `--n N`: a whole number written as digits. */
export function countFlag(flag: string) {
  return z
    .string({ error: `${flag} needs a whole number` })
    .regex(/^\d+$/, `${flag} needs a whole number`)
    .transform(Number)
    .refine(Number.isSafeInteger, `${flag} needs a whole number`);
}
