import type { Environment } from '../config.ts';
import type { Executor } from './schema.ts';

export interface QueueFilter {
  orgId: string;
  environment: Environment;
  queueCategory?: string;
  runtimeStatus?: string;
  caseTypeId?: string;
  after?: { sortTimestamp: Date; caseId: string };
  limit: number;
}

/** Queue rows oldest first (by when the case entered its status), keyset-paged. */
export async function listQueueRows(db: Executor, f: QueueFilter) {
  let q = db
    .selectFrom('cases')
    .select(['case_id', 'queue_row', 'status_changed_at', 'updated_at'])
    .where('org_id', '=', f.orgId)
    .where('environment', '=', f.environment);
  if (f.queueCategory) q = q.where('queue_category', '=', f.queueCategory);
  if (f.runtimeStatus) q = q.where('runtime_status', '=', f.runtimeStatus as never);
  if (f.caseTypeId) q = q.where('case_type_id', '=', f.caseTypeId);
  if (f.after) {
    const { sortTimestamp, caseId } = f.after;
    q = q.where((eb) => eb.or([eb('status_changed_at', '>', sortTimestamp), eb.and([eb('status_changed_at', '=', sortTimestamp), eb('case_id', '>', caseId)])]));
  }
  const rows = await q.orderBy('status_changed_at').orderBy('case_id').limit(f.limit + 1).execute();
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}
