import { idempotencySweep } from './idempotency-sweep.ts';
import type { JobTask } from './worker.ts';

/** The background tasks every worker runs; later capabilities add theirs here. */
export function jobTasks(): JobTask[] {
  return [idempotencySweep];
}
