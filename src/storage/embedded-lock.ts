import { mkdirSync, openSync, readFileSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * PGlite takes no lock on its data directory and corrupts it when two processes open it, so the
 * owner process holds `dossier.lock` (its pid). A lock whose pid is no longer alive is stale
 * (the owner crashed) and is taken over; `wx` creation makes the takeover race safe.
 */
export interface EmbeddedLock {
  readonly path: string;
  release(): void;
}

export type LockAttempt = { ok: true; lock: EmbeddedLock } | { ok: false; ownerPid: number };

export function lockFilePath(dataDir: string): string {
  return join(dataDir, 'dossier.lock');
}

export function tryAcquireEmbeddedLock(dataDir: string): LockAttempt {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = lockFilePath(dataDir);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off('exit', release);
        try {
          if (readOwner(path) === process.pid) unlinkSync(path);
        } catch {
          // already gone: nothing to release
        }
      };
      process.once('exit', release);
      return { ok: true, lock: { path, release } };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = readOwner(path);
      if (owner !== undefined && owner !== process.pid && isAlive(owner)) return { ok: false, ownerPid: owner };
      try {
        unlinkSync(path);
      } catch {
        // another process removed the stale lock first; retry the exclusive create
      }
    }
  }
  const owner = readOwner(path);
  return { ok: false, ownerPid: owner ?? -1 };
}

/** The pid of a live owner of the embedded database, if any. */
export function embeddedOwner(dataDir: string): number | undefined {
  const owner = readOwner(lockFilePath(dataDir));
  return owner !== undefined && isAlive(owner) ? owner : undefined;
}

function readOwner(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
