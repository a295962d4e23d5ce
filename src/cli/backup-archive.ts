import { createHash } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, lstatSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { deriveKey } from '../domain/crypto/secret-box.ts';
import { lockFilePath } from '../storage/embedded-lock.ts';

/**
 * The backup file of an embedded deployment: everything a fresh DATA_DIR needs.
 *
 *   DOSSIER-BACKUP/1\n
 *   <manifest, one line of JSON>\n
 *   <the database dump><file 1><file 2>…   (lengths and SHA-256 in the manifest)
 *
 * Besides the database (which holds the generated deployment secret today), it carries every
 * small regular file at the top of DATA_DIR — where a generated secret kept beside the database
 * lives — so sealed secrets (webhook signing secrets, the demo key) open after a restore. A
 * secret given as DOSSIER_SECRET is not in the file: the manifest says so, with a fingerprint
 * that lets `restore` refuse a different one.
 */
const MAGIC = 'DOSSIER-BACKUP/1\n';
/** Larger top-level files are not configuration or secrets; they are not carried. */
const MAX_CARRIED_FILE_BYTES = 1024 * 1024;

const entry = z.object({ name: z.string(), bytes: z.number().int().nonnegative(), sha256: z.string().length(64) });
const manifestSchema = z.object({
  format: z.literal(1),
  created_at: z.string(),
  migrations: z.array(z.string()),
  database: entry,
  files: z.array(entry),
  secret: z.object({
    /** `DOSSIER_SECRET`: supplied by the environment, not in this file; `generated`: in this file. */
    source: z.enum(['DOSSIER_SECRET', 'generated']),
    fingerprint: z.string(),
  }),
});
export type BackupManifest = z.output<typeof manifestSchema>;

export interface BackupContents {
  manifest: BackupManifest;
  database: Uint8Array;
  files: { name: string; content: Uint8Array }[];
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A one-way fingerprint of the deployment secret: says whether two secrets are the same, reveals neither. */
export function secretFingerprint(secret: string): string {
  return deriveKey(secret, 'backup-secret-fingerprint').toString('hex').slice(0, 16);
}

/** The regular files at the top of DATA_DIR worth carrying: not the lock, nothing large (the admin socket is no regular file). */
export function readCarriedFiles(dataDir: string): { name: string; content: Uint8Array }[] {
  const skip = new Set([basename(lockFilePath(dataDir))]);
  const files: { name: string; content: Uint8Array }[] = [];
  for (const name of readdirSync(dataDir).sort()) {
    if (skip.has(name) || name.endsWith('.partial')) continue;
    const path = join(dataDir, name);
    const stat = statSync(path);
    if (!stat.isFile() || stat.size > MAX_CARRIED_FILE_BYTES) continue;
    files.push({ name, content: readFileSync(path) });
  }
  return files;
}

/** The backup cannot be written where asked, for a reason the operator must look at. */
export class BackupOutputError extends Error {
  override name = 'BackupOutputError';
}

/**
 * Opens `<out>.partial` as a new file of ours, mode 0600. Opening an existing file keeps its mode
 * and owner: a partial planted at 0644 gave a world-readable backup holding the deployment
 * secret. So a stale partial is removed only when it is a regular file this process's user
 * owns (an interrupted backup of ours); a symlink or another user's file is refused. `wx` then
 * creates it exclusively (and never through a symlink planted in between), and fchmod pins the
 * mode whatever the umask.
 */
function createPartial(partial: string): number {
  let stale: Stats | undefined;
  try {
    stale = lstatSync(partial);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (stale) {
    const uid = process.getuid?.();
    if (stale.isSymbolicLink()) throw new BackupOutputError(`${partial} is a symbolic link: a backup is never written through one. Remove it, or choose another --out.`);
    if (!stale.isFile()) throw new BackupOutputError(`${partial} exists and is not a regular file: remove it, or choose another --out.`);
    if (uid !== undefined && stale.uid !== uid) throw new BackupOutputError(`${partial} belongs to uid ${stale.uid}, not to this process's user (uid ${uid}): remove it, or choose another --out.`);
    unlinkSync(partial);
  }
  let fd: number;
  try {
    fd = openSync(partial, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new BackupOutputError(`${partial} appeared while this backup was starting: is another backup writing to the same --out?`);
    throw err;
  }
  fchmodSync(fd, 0o600);
  return fd;
}

/** Writes the backup to `path` atomically (a partial file renamed when complete), readable by the owner only. */
export function writeBackup(
  path: string,
  input: { createdAt: Date; migrations: string[]; database: Uint8Array; files: { name: string; content: Uint8Array }[]; secretSource: 'DOSSIER_SECRET' | 'generated'; secret: string },
): { bytes: number; sha256: string; manifest: BackupManifest } {
  const manifest: BackupManifest = {
    format: 1,
    created_at: input.createdAt.toISOString(),
    migrations: input.migrations,
    database: { name: 'pgdata.tar.gz', bytes: input.database.byteLength, sha256: sha256(input.database) },
    files: input.files.map((f) => ({ name: f.name, bytes: f.content.byteLength, sha256: sha256(f.content) })),
    secret: { source: input.secretSource, fingerprint: secretFingerprint(input.secret) },
  };
  const parts = [Buffer.from(`${MAGIC}${JSON.stringify(manifest)}\n`), input.database, ...input.files.map((f) => f.content)];
  const partial = `${path}.partial`;
  const fd = createPartial(partial);
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    for (const part of parts) {
      writeSync(fd, part);
      hash.update(part);
      bytes += part.byteLength;
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(partial, path);
  return { bytes, sha256: hash.digest('hex'), manifest };
}

export class BackupFormatError extends Error {
  override name = 'BackupFormatError';
}

/** Reads and checks a backup: the format, the manifest, every length and checksum. Nothing is trusted before this. */
export function readBackup(path: string): BackupContents {
  const raw = readFileSync(path);
  if (raw.subarray(0, MAGIC.length).toString('utf8') !== MAGIC) throw new BackupFormatError(`${path} is not a Dossier backup`);
  const end = raw.indexOf(0x0a, MAGIC.length);
  if (end === -1) throw new BackupFormatError(`${path} is truncated: no manifest`);
  let manifest: BackupManifest;
  try {
    manifest = manifestSchema.parse(JSON.parse(raw.subarray(MAGIC.length, end).toString('utf8')));
  } catch (err) {
    throw new BackupFormatError(`${path} has an unreadable manifest: ${(err as Error).message}`);
  }
  let offset = end + 1;
  const take = (e: z.output<typeof entry>) => {
    const content = raw.subarray(offset, offset + e.bytes);
    offset += e.bytes;
    if (content.byteLength !== e.bytes || sha256(content) !== e.sha256) throw new BackupFormatError(`${path} is damaged: ${e.name} does not match its checksum`);
    return new Uint8Array(content);
  };
  const database = take(manifest.database);
  const files = manifest.files.map((f) => {
    if (f.name !== basename(f.name) || f.name === '.' || f.name === '..' || f.name === '') throw new BackupFormatError(`${path} names a file outside DATA_DIR: ${f.name}`);
    return { name: f.name, content: take(f) };
  });
  if (offset !== raw.byteLength) throw new BackupFormatError(`${path} has ${raw.byteLength - offset} unexpected bytes at its end`);
  return { manifest, database, files };
}
