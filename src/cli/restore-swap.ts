import { closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readdirSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * How `restore` replaces a DATA_DIR without losing it to a backup that does not load: the backup
 * is unpacked into a staging directory inside DATA_DIR (the same file system, so the swap is
 * renames, never copies), opened there, and only then swapped in; the previous database and
 * files are moved into the staging directory and deleted with it last.
 *
 * The swap is a handful of renames, not one: a crash in those microseconds leaves a
 * `.restore-*` folder holding the previous or the incoming copy, which a later restore leaves
 * alone (it is a folder) and an operator can move back by hand.
 */
export const RESTORE_STAGING_PREFIX = '.restore-';

/** A fresh staging directory inside DATA_DIR, with `incoming/` for the restored copy. Mode 0700. */
export function createRestoreStaging(dataDir: string): { staging: string; incoming: string; previous: string } {
  const staging = mkdtempSync(join(dataDir, RESTORE_STAGING_PREFIX));
  const incoming = join(staging, 'incoming');
  mkdirSync(incoming, { mode: 0o700 });
  return { staging, incoming, previous: join(staging, 'previous') };
}

/** Writes a file that must survive a power cut once the swap has happened (the secret). */
export function writeFileDurably(path: string, content: Uint8Array): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export class SwapError extends Error {
  override name = 'SwapError';
  /** False when putting the previous copy back failed too: part of it is still in `previous`. */
  readonly rolledBack: boolean;
  constructor(cause: Error, rolledBack: boolean) {
    super(cause.message, { cause });
    this.rolledBack = rolledBack;
  }
}

/**
 * Moves `replaced` (names in DATA_DIR) into `previous`, then everything in `incoming` into
 * DATA_DIR. A failed rename undoes the ones before it, newest first, and throws a SwapError.
 */
export function swapIntoDataDir(dataDir: string, incoming: string, replaced: readonly string[], previous: string): void {
  mkdirSync(previous, { mode: 0o700 });
  const undo: (() => void)[] = [];
  const move = (from: string, to: string) => {
    renameSync(from, to);
    undo.push(() => renameSync(to, from));
  };
  try {
    for (const name of replaced) move(join(dataDir, name), join(previous, name));
    for (const name of readdirSync(incoming)) move(join(incoming, name), join(dataDir, name));
  } catch (err) {
    let rolledBack = true;
    for (const step of undo.reverse()) {
      try {
        step();
      } catch {
        rolledBack = false;
      }
    }
    throw new SwapError(err as Error, rolledBack);
  }
  // The renames are durable before the previous copy is deleted.
  const dir = openSync(dataDir, 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
