import { expireSessions } from '../domain/cases/expire-sessions.ts';
import type { JobTask } from './worker.ts';

/** Closes cases whose session expired unsubmitted (abandoned). */
export const sessionExpirySweep: JobTask = {
  name: 'session-expiry',
  idleMs: 30_000,
  run: (ctx) => expireSessions(ctx),
};
