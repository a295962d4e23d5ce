import type { Tenant } from '../../ports/tenant.ts';
import type { OrgRow } from '../../storage/schema.ts';

/**
 * The workspace and case-type version this process last created a session under, per workspace,
 * environment and case type: what a one-round-trip creation decides its gates on (issue 29,
 * part D). Never trusted on its own: the creation function re-reads every input the decision
 * rested on in the transaction that writes (migration 0029) and writes nothing when one moved, and
 * the general path then reads afresh and remembers again. So a stale entry costs a round trip,
 * never a wrong answer. Bounded; the oldest entry goes first.
 */
export interface RememberedGates {
  org: OrgRow;
  workflowVersion: string;
}

const remembered = new Map<string, RememberedGates>();
const LIMIT = 2_000;

// Workspace ids and environments hold no line feed and the case type comes last, so the text names one triple.
const keyOf = (tenant: Tenant, caseTypeId: string) => `${tenant.orgId}\n${tenant.environment}\n${caseTypeId}`;

export function rememberedGates(tenant: Tenant, caseTypeId: string): RememberedGates | undefined {
  return remembered.get(keyOf(tenant, caseTypeId));
}

export function rememberGates(tenant: Tenant, caseTypeId: string, gates: RememberedGates): void {
  const key = keyOf(tenant, caseTypeId);
  remembered.delete(key);
  if (remembered.size >= LIMIT) remembered.delete(remembered.keys().next().value as string);
  remembered.set(key, gates);
}

export function forgetGates(tenant: Tenant, caseTypeId: string): void {
  remembered.delete(keyOf(tenant, caseTypeId));
}
