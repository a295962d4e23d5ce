import type { Clock } from '../../ports/clock.ts';
import type { Executor } from '../../storage/schema.ts';
import { casesPerDay, deliveriesPerDay } from '../../storage/console-stats.ts';
import { queueCategoryCounts } from './queue-page.ts';
import { QUEUE_CATEGORIES, type QueueCategory } from '../cases/queue.ts';
import type { Tenant } from '../../ports/tenant.ts';

export const OVERVIEW_DAYS = 14;

export interface ConsoleOverview {
  counts: Record<QueueCategory, number>;
  /** The last 14 UTC days, oldest first, as YYYY-MM-DD. */
  days: string[];
  created: number[];
  completed: number[];
  delivered: number[];
  failed: number[];
  pending: number[];
}

/** The overview: cases per queue category, and 14 days of cases and webhook deliveries. */
export async function readConsoleOverview(deps: { db: Executor; clock: Clock }, input: { tenant: Tenant }): Promise<ConsoleOverview> {
  const { db } = deps;
  const { tenant } = input;
  const now = deps.clock.now();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const days = Array.from({ length: OVERVIEW_DAYS }, (_, i) => new Date(today - (OVERVIEW_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
  const from = new Date(today - (OVERVIEW_DAYS - 1) * 86_400_000);
  const [counted, cases, deliveries] = await Promise.all([
    queueCategoryCounts(deps, tenant),
    casesPerDay(db, tenant, from),
    deliveriesPerDay(db, tenant, from),
  ]);
  return {
    counts: counted,
    days,
    created: days.map((d) => cases.created.get(d) ?? 0),
    completed: days.map((d) => cases.completed.get(d) ?? 0),
    delivered: days.map((d) => deliveries.get(d)?.delivered ?? 0),
    failed: days.map((d) => deliveries.get(d)?.failed ?? 0),
    pending: days.map((d) => deliveries.get(d)?.pending ?? 0),
  };
}
