import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config.ts';
import type { DatabaseTarget } from './storage/database.ts';
import type { Executor } from './storage/schema.ts';
import { deleteSetting, readSetting } from './storage/settings.ts';

/** Where an embedded deployment keeps its generated secret: beside the database, never in it. */
export const SECRET_FILE = 'secret';
/** Earlier versions stored the generated secret in the settings table; it is moved out at start. */
const LEGACY_SETTING = 'dossier_secret';

export const SECRET_HOWTO = 'Make one with `openssl rand -base64 48` and keep it with your backups.';

/** A ConfigError, so the CLI prints the message alone (no stack): it is an instruction, not a crash. */
export class MissingSecretError extends ConfigError {
  constructor(legacyStored: boolean) {
    super(
      `DOSSIER_SECRET is required with PostgreSQL (DATABASE_URL): it seals webhook signing secrets and signs links, and must not live in the database it protects. ${SECRET_HOWTO}` +
        (legacyStored
          ? ' This database holds the secret an earlier version generated (settings row dossier_secret): set DOSSIER_SECRET to that value, start once (the row is then deleted), and rotate webhook secrets if a dump may have leaked.'
          : ''),
    );
  }
}

export function secretFilePath(dataDir: string): string {
  return join(dataDir, SECRET_FILE);
}

/**
 * The deployment secret (issue 9 §4):
 * - DOSSIER_SECRET when set; a secret an earlier version stored in the database is then deleted
 *   when it is the same value (a different one is left alone: data may still be sealed under it).
 * - PostgreSQL without it: refuse to start.
 * - Embedded on disk: `DATA_DIR/secret`, mode 0600, created on first start (or moved out of the
 *   database, where earlier versions kept it).
 * - Embedded in memory (tests): a fresh random secret for the life of the process.
 */
export async function resolveDeploymentSecret(db: Executor, target: DatabaseTarget, configured: string | undefined): Promise<string> {
  const legacy = await readSetting(db, LEGACY_SETTING);
  if (configured) {
    if (legacy === configured) await deleteSetting(db, LEGACY_SETTING);
    return configured;
  }
  if (target.kind === 'postgres') throw new MissingSecretError(legacy !== undefined);
  if (target.kind === 'embedded-memory') return legacy ?? randomBytes(32).toString('base64url');

  const path = secretFilePath(target.dataDir);
  let secret = readSecretFile(path);
  if (secret === undefined) {
    const fresh = legacy ?? randomBytes(32).toString('base64url');
    try {
      // O_EXCL: two processes starting at once cannot both write; the loser reads the winner's.
      writeFileSync(path, `${fresh}\n`, { mode: 0o600, flag: 'wx' });
      secret = fresh;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      secret = readSecretFile(path);
      if (secret === undefined) throw new Error(`${path} is empty: remove it or restore it from a backup`);
    }
  }
  // Only after the file holds it: a crash in between leaves the secret in one place at least.
  if (legacy !== undefined) {
    if (legacy !== secret) throw new Error(`${path} and the secret stored in the database differ: keep the one your sealed data was made with`);
    await deleteSetting(db, LEGACY_SETTING);
  }
  return secret;
}

function readSecretFile(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  // A restored or hand-copied file may have lost its mode: the secret is readable by its owner only.
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  const secret = text.trim();
  return secret === '' ? undefined : secret;
}
