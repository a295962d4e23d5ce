import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig, type Config } from '../../config.ts';
import { dumpEmbeddedDatabase, loadEmbeddedDatabase, UnreadableDumpError } from '../../storage/embedded-backup.ts';
import { embeddedOwner, lockFilePath, tryAcquireEmbeddedLock } from '../../storage/embedded-lock.ts';
import { BackupFormatError, BackupOutputError, readBackup, readCarriedFiles, secretFingerprint, writeBackup } from '../backup-archive.ts';
import { cliError, type CliError } from '../output.ts';
import { createRestoreStaging, RESTORE_STAGING_PREFIX, SwapError, swapIntoDataDir, writeFileDurably } from '../restore-swap.ts';
import type { AdminCommand, CommandOutcome } from './command.ts';

const backupFlags = z.object({ out: z.string({ error: '--out FILE is required' }).min(1, '--out FILE is required') });

const POSTGRES_NOTE =
  'dossier backup covers the embedded database. For PostgreSQL, back up with pg_dump and keep DOSSIER_SECRET with it: see docs/operations.md.';

/**
 * `dossier backup --out FILE`. While a server owns the embedded database this runs inside it
 * (through the admin socket), so the copy is taken between two transactions of the live server;
 * otherwise the CLI opens the database itself. The file holds the deployment secret when it was
 * generated: it is written readable by its owner only, and must be kept like the secret.
 */
export const BACKUP_COMMANDS: readonly AdminCommand[] = [
  {
    path: ['backup'],
    usage: 'dossier backup --out FILE',
    options: { out: { type: 'string' } },
    flags: backupFlags,
    async run(ctx, values, _positionals, runtime) {
      const { out } = backupFlags.parse(values);
      if (runtime.database.kind !== 'embedded') return cliError('precondition_required', POSTGRES_NOTE);
      const started = performance.now();
      const { dump: database, pausedMs } = await dumpEmbeddedDatabase(runtime.database);
      let written: ReturnType<typeof writeBackup>;
      try {
        written = writeBackup(resolve(out), {
          createdAt: ctx.clock.now(),
          migrations: [...runtime.migrations.already_applied, ...runtime.migrations.applied].sort(),
          database,
          files: readCarriedFiles(ctx.config.dataDir),
          secretSource: ctx.config.secret ? 'DOSSIER_SECRET' : 'generated',
          secret: ctx.secret,
        });
      } catch (err) {
        if (err instanceof BackupOutputError) return cliError('precondition_required', err.message);
        throw err;
      }
      return {
        out: resolve(out),
        bytes: written.bytes,
        sha256: written.sha256,
        created_at: written.manifest.created_at,
        migrations: written.manifest.migrations.length,
        files: written.manifest.files.map((f) => f.name),
        secret: written.manifest.secret.source,
        duration_ms: Math.round(performance.now() - started),
        /** How long requests to a running server waited for the copy. */
        paused_ms: pausedMs,
        note:
          written.manifest.secret.source === 'generated'
            ? 'The file holds the deployment secret: keep it as safe as the secret itself.'
            : 'DOSSIER_SECRET is not in the file: keep it with the backup, or sealed secrets cannot be opened after a restore.',
      };
    },
  },
];

const RESTORE_USAGE = 'dossier restore --in FILE [--force]';

/** What DATA_DIR holds that a restore would overwrite (the lock and a dead server's admin socket do not count). */
function occupiedEntries(dataDir: string): string[] {
  if (!existsSync(dataDir)) return [];
  const lock = basename(lockFilePath(dataDir));
  return readdirSync(dataDir).filter((name) => name !== lock && !statSync(join(dataDir, name)).isSocket());
}

/**
 * `dossier restore --in FILE [--force]`: a fresh DATA_DIR from a backup. Never while a process owns
 * the directory; never over existing data without --force (which replaces the database and the
 * top-level files, and leaves other folders alone). The file is checked whole before anything is
 * touched, and a DOSSIER_SECRET that differs from the backed-up deployment's is refused, because
 * the restored deployment could not open its own sealed secrets. The database is unpacked and
 * opened in a staging directory and swapped in only once it opens (see restore-swap.ts).
 */
export async function restoreBackup(argv: readonly string[], config: Config = loadConfig()): Promise<CommandOutcome> {
  let values: { in?: string | undefined; force?: boolean | undefined };
  try {
    ({ values } = parseArgs({ args: [...argv], options: { in: { type: 'string' }, force: { type: 'boolean' } }, strict: true, allowPositionals: false }));
  } catch (err) {
    return { exitCode: 2, result: cliError('invalid_request', `${(err as Error).message}; usage: ${RESTORE_USAGE}`) };
  }
  if (!values.in) return { exitCode: 2, result: cliError('invalid_request', `--in FILE is required; usage: ${RESTORE_USAGE}`) };
  if (config.databaseUrl) {
    return { exitCode: 1, result: cliError('precondition_required', 'dossier restore is for the embedded database (DATABASE_URL is set): restore PostgreSQL with pg_restore or psql; see docs/operations.md.') };
  }
  const dataDir = resolve(config.dataDir);
  const owner = embeddedOwner(dataDir);
  if (owner !== undefined) return fail(1, 'precondition_required', `${dataDir} is in use by process ${owner}: stop it before restoring into it.`);

  let backup;
  try {
    backup = readBackup(resolve(values.in));
  } catch (err) {
    if (err instanceof BackupFormatError || (err as NodeJS.ErrnoException).code === 'ENOENT') return fail(1, 'invalid_request', (err as Error).message);
    throw err;
  }
  const { manifest } = backup;
  if (config.secret && secretFingerprint(config.secret) !== manifest.secret.fingerprint) {
    return fail(
      1,
      'invalid_request',
      manifest.secret.source === 'generated'
        ? 'DOSSIER_SECRET is set, but the backed-up deployment used a generated secret (carried in the backup): unset DOSSIER_SECRET, or the restored deployment cannot open its sealed secrets.'
        : 'DOSSIER_SECRET differs from the one the backed-up deployment used: set the same value, or the restored deployment cannot open its sealed secrets.',
    );
  }

  const occupied = occupiedEntries(dataDir);
  if (occupied.length > 0 && !values.force) {
    return fail(1, 'precondition_required', `${dataDir} is not empty (${occupied.slice(0, 5).join(', ')}): restore into an empty DATA_DIR, or pass --force to replace its database and files.`);
  }

  const reserved = backup.files.find((f) => f.name === 'pgdata' || f.name === basename(lockFilePath(dataDir)) || f.name.startsWith(RESTORE_STAGING_PREFIX));
  if (reserved) return fail(1, 'invalid_request', `${resolve(values.in)} carries a file named ${reserved.name}, which DATA_DIR reserves: it is not a backup this version wrote.`);

  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const attempt = tryAcquireEmbeddedLock(dataDir);
  if (!attempt.ok) return fail(1, 'precondition_required', `${dataDir} is in use by process ${attempt.ownerPid}: stop it before restoring into it.`);
  // Unpacked and opened beside the current data first: a backup whose checksums hold but whose
  // database does not load (a damaged tar) must leave the current database and secret serving.
  const { staging, incoming, previous } = createRestoreStaging(dataDir);
  let keepStaging = false;
  let migrations: string[];
  try {
    try {
      migrations = await loadEmbeddedDatabase(join(incoming, 'pgdata'), backup.database);
    } catch (err) {
      if (err instanceof UnreadableDumpError) return fail(1, 'invalid_request', `${resolve(values.in)}: ${err.message}. Nothing in ${dataDir} was changed.`);
      throw err;
    }
    for (const file of backup.files) writeFileDurably(join(incoming, file.name), file.content);
    // --force: the database and the top-level files are replaced; folders the deployment does not own stay.
    const replaced = occupiedEntries(dataDir).filter((name) => name === 'pgdata' || statSync(join(dataDir, name)).isFile());
    try {
      swapIntoDataDir(dataDir, incoming, replaced, previous);
    } catch (err) {
      if (!(err instanceof SwapError)) throw err;
      if (err.rolledBack) return fail(1, 'internal_error', `Could not move the restored copy into ${dataDir} (${err.message}): nothing in it was changed.`);
      keepStaging = true;
      return fail(1, 'internal_error', `The swap into ${dataDir} failed halfway (${err.message}) and could not be undone: the previous database and files are in ${previous}; move them back before starting the service.`);
    }
  } finally {
    if (!keepStaging) rmSync(staging, { recursive: true, force: true });
    attempt.lock.release();
  }
  return {
    exitCode: 0,
    result: {
      restored: dataDir,
      backup_created_at: manifest.created_at,
      migrations: migrations.length,
      files: backup.files.map((f) => f.name),
      secret: manifest.secret.source,
      note:
        manifest.secret.source === 'generated'
          ? 'The deployment secret came with the backup: start the service without DOSSIER_SECRET.'
          : config.secret
            ? 'DOSSIER_SECRET matches the backed-up deployment.'
            : 'Set DOSSIER_SECRET to the value the backed-up deployment used before starting the service.',
    },
  };
}

function fail(exitCode: number, code: string, message: string): { exitCode: number; result: CliError } {
  return { exitCode, result: cliError(code, message) };
}
