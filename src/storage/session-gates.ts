import { sql } from 'kysely';
import type { Environment } from '../config.ts';
import type { Executor, OrgRow } from './schema.ts';

/** What the session gates and the case type check read, as of one statement. */
export interface SessionGateInputs {
  org: OrgRow;
  /** Sessions committed this period (the sharded counter's sum). */
  used: number;
  /** The case type's current workflow version; undefined when the workspace has no such type. */
  caseTypeVersion: string | undefined;
}

/**
 * The workspace, its month's session count and the case type's current version in one round
 * trip: session creation read them in three statements before (issue 16). Undefined when the
 * workspace no longer exists.
 */
export async function readSessionGateInputs(
  db: Executor,
  input: { orgId: string; environment: Environment; period: string; caseTypeId: string },
): Promise<SessionGateInputs | undefined> {
  const row = await db
    .selectFrom('orgs as o')
    .selectAll('o')
    .select((eb) => [
      eb
        .selectFrom('usage_counters as u')
        .select(sql<string>`coalesce(sum(u.sessions_created), 0)`.as('n'))
        .whereRef('u.org_id', '=', 'o.org_id')
        .where('u.environment', '=', input.environment)
        .where('u.period', '=', input.period)
        .as('x_used'),
      eb
        .selectFrom('case_types as ct')
        .select('ct.workflow_version')
        .whereRef('ct.org_id', '=', 'o.org_id')
        .where('ct.environment', '=', input.environment)
        .where('ct.case_type_id', '=', input.caseTypeId)
        .as('x_case_type_version'),
    ])
    .where('o.org_id', '=', input.orgId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { x_used, x_case_type_version, ...org } = row;
  return { org: org as OrgRow, used: Number(x_used ?? 0), caseTypeVersion: x_case_type_version ?? undefined };
}
