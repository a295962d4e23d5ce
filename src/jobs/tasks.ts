import { caseJobsTask, CASE_ENGINE_HANDLERS, CASE_ENGINE_OPTIONS } from './case-jobs.ts';
import { idempotencySweep } from './idempotency-sweep.ts';
import { sessionExpirySweep } from './session-expiry.ts';
import { documentRetentionSweep, orphanObjectSweep, webhookRetentionSweep } from './retention-sweeps.ts';
import { webhookDeliveryTask } from './webhook-delivery.ts';
import { connectorCallTask } from './connector-calls.ts';
import type { JobTask } from './worker.ts';

/** The background tasks every worker runs; later capabilities add theirs here. */
export function jobTasks(): JobTask[] {
  return [idempotencySweep, sessionExpirySweep, caseJobsTask(CASE_ENGINE_HANDLERS, CASE_ENGINE_OPTIONS), webhookDeliveryTask(), connectorCallTask(), webhookRetentionSweep(), documentRetentionSweep(), orphanObjectSweep()];
}
