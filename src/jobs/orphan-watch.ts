import { Worker } from 'node:worker_threads';

/** The environment variable through which a parent tells its child its pid. */
export const PARENT_PID_VARIABLE = 'DOSSIER_PARENT_PID';

/**
 * Makes a child process die with its parent. The parent kills a child that overruns, but a parent
 * that is itself killed (SIGKILL, the OOM killer) cannot, and a child spinning in a parser never
 * sees its IPC channel close. This thread runs beside the main one, so it still runs while that
 * one is stuck: when the parent is gone (the child was re-parented) it kills the process.
 */
export function dieWithParent(intervalMs = 500): void {
  // The parent names itself: a child whose parent died while it was starting is already
  // re-parented, and its own `ppid` would name the wrong process.
  const parent = Number(process.env[PARENT_PID_VARIABLE]) || process.ppid;
  const watch = new Worker(
    `const { workerData } = require('node:worker_threads');
     setInterval(() => { if (process.ppid !== workerData.parent) process.kill(workerData.self, 'SIGKILL'); }, workerData.intervalMs);`,
    { eval: true, workerData: { parent, self: process.pid, intervalMs } },
  );
  watch.unref();
}
