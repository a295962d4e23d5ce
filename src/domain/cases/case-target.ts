import { findCaseType, findCaseTypeVersion } from '../../storage/case-types.ts';
import { externalCaseIdTaken } from '../../storage/cases.ts';
import type { Tx } from '../../storage/schema.ts';
import { uniqueViolation } from '../../storage/unit-of-work.ts';
import type { CaseTypeDefinition } from '../case-types/definition.ts';
import { fail, ok, type Failure, type Result } from '../errors.ts';
import type { Tenant } from './read-case.ts';


/** The current version of a case type, which a new case is pinned to; `not_found` when there is no such type. */
export async function currentCaseTypeVersion(
  tx: Tx,
  tenant: Tenant,
  caseTypeId: string,
): Promise<Result<{ caseTypeId: string; workflowVersion: string; definition: CaseTypeDefinition }>> {
  const caseType = await findCaseType(tx, tenant.orgId, tenant.environment, caseTypeId);
  if (!caseType) return fail('not_found', `No case type "${caseTypeId}" in this ${tenant.environment} workspace.`);
  const version = await findCaseTypeVersion(tx, tenant.orgId, tenant.environment, caseType.case_type_id, caseType.workflow_version);
  if (!version) throw new Error(`case type ${caseType.case_type_id} has no version ${caseType.workflow_version}`);
  return ok({ caseTypeId: caseType.case_type_id, workflowVersion: version.workflow_version, definition: version.definition as CaseTypeDefinition });
}

export function externalCaseIdConflict(externalCaseId: string): Failure {
  return fail('external_case_id_conflict', `A case with external_case_id "${externalCaseId}" already exists in this workspace.`);
}

/** `external_case_id` is unique per workspace and environment. */
export async function externalCaseIdFree(tx: Tx, tenant: Tenant, externalCaseId: string | undefined): Promise<Result<void>> {
  if (externalCaseId !== undefined && (await externalCaseIdTaken(tx, tenant.orgId, tenant.environment, externalCaseId))) {
    return externalCaseIdConflict(externalCaseId);
  }
  return ok(undefined);
}

/**
 * Two requests with different idempotency keys racing for one external_case_id both pass the
 * check above; the unique index decides, and the loser is answered as if it had seen the winner.
 */
export function externalCaseIdRace(err: unknown, externalCaseId: string | undefined): Failure | undefined {
  return uniqueViolation(err) === 'cases_external_case_id' && externalCaseId !== undefined ? externalCaseIdConflict(externalCaseId) : undefined;
}
