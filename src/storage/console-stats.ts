import { sql } from 'kysely';
import type { Executor } from './schema.ts';
import type { Tenant } from '../ports/tenant.ts';

type DayCounts = Map<string, number>;

const day = (column: string) => sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD')`;

/** Cases created and completed per UTC day since `from`. */
export async function casesPerDay(db: Executor, tenant: Tenant, from: Date): Promise<{ created: DayCounts; completed: DayCounts }> {
  const [created, completed] = await Promise.all([
    db
      .selectFrom('cases')
      .select([day('created_at').as('day'), sql<string>`count(*)`.as('n')])
      .where('org_id', '=', tenant.orgId)
      .where('environment', '=', tenant.environment)
      .where('created_at', '>=', from)
      .groupBy(sql`1`)
      .execute(),
    db
      .selectFrom('cases')
      .select([day('completed_at').as('day'), sql<string>`count(*)`.as('n')])
      .where('org_id', '=', tenant.orgId)
      .where('environment', '=', tenant.environment)
      .where('runtime_status', '=', 'complete')
      .where('completed_at', '>=', from)
      .groupBy(sql`1`)
      .execute(),
  ]);
  return { created: new Map(created.map((r) => [r.day, Number(r.n)])), completed: new Map(completed.map((r) => [r.day, Number(r.n)])) };
}

/** Webhook deliveries created per UTC day since `from`, by how they ended so far. */
export async function deliveriesPerDay(db: Executor, tenant: Tenant, from: Date): Promise<Map<string, { delivered: number; failed: number; pending: number }>> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select([
      day('created_at').as('day'),
      sql<string>`count(*) filter (where status = 'delivered')`.as('delivered'),
      sql<string>`count(*) filter (where status = 'failed')`.as('failed'),
      sql<string>`count(*) filter (where status in ('pending', 'retry_scheduled'))`.as('pending'),
    ])
    .where('org_id', '=', tenant.orgId)
    .where('environment', '=', tenant.environment)
    .where('created_at', '>=', from)
    .groupBy(sql`1`)
    .execute();
  return new Map(rows.map((r) => [r.day, { delivered: Number(r.delivered), failed: Number(r.failed), pending: Number(r.pending) }]));
}
