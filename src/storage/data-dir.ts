import { statSync } from 'node:fs';

export type DataDirCheck = { ok: true; warning?: string } | { ok: false; message: string };

/**
 * DATA_DIR holds the database, the generated secret and the admin socket. Writable by group or
 * others, anyone in them could swap the secret or the socket: refused. Readable by them: the
 * files keep their own modes (secret 0600, socket 0600), so only a warning. A missing directory
 * is fine: it is created 0700.
 */
export function checkDataDirMode(dataDir: string): DataDirCheck {
  let mode: number;
  try {
    mode = statSync(dataDir).mode & 0o777;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true };
    throw err;
  }
  const octal = mode.toString(8).padStart(3, '0');
  if ((mode & 0o022) !== 0) {
    return { ok: false, message: `DATA_DIR ${dataDir} is writable by group or others (mode ${octal}): run \`chmod 700 ${dataDir}\`, then start again.` };
  }
  if ((mode & 0o044) !== 0) return { ok: true, warning: `DATA_DIR ${dataDir} is readable by group or others (mode ${octal}); \`chmod 700 ${dataDir}\` keeps the database to its owner.` };
  return { ok: true };
}
