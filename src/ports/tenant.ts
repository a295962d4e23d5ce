import type { Environment } from '../config.ts';

/**
 * A workspace: one organisation in one environment. Every read or write of a workspace's rows
 * takes one (issue 23, item 7); deployment-wide access has its own `…Unscoped` functions, so a
 * handler that forgets the workspace does not compile, and test/architecture/tenant-scope.test.ts
 * fails on a storage function that could reach another workspace.
 */
export interface Tenant {
  readonly orgId: string;
  readonly environment: Environment;
}

/** The workspace a stored row belongs to (every workspace table has `org_id` and `environment`). */
export function tenantOfRow(row: { org_id: string; environment: Environment }): Tenant {
  return { orgId: row.org_id, environment: row.environment };
}
