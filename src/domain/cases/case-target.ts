import { findCaseType } from '../../storage/case-types.ts';
import { externalCaseIdTaken } from '../../storage/cases.ts';
import type { Executor, Tx } from '../../storage/schema.ts';
import { uniqueViolation } from '../../storage/unit-of-work.ts';
import { loadPinnedDefinition } from '../case-types/case-types.ts';
import type { CaseTypeDefinition } from '../case-types/definition.ts';
import { fail, failOn, ok, type Failure, type Result } from '../errors.ts';
import type { Tenant } from '../../ports/tenant.ts';


export interface CaseTypeTarget {
  caseTypeId: string;
  workflowVersion: string;
  definition: CaseTypeDefinition;
}

/** The current version of a case type, which a new case is pinned to; `not_found` when there is no such type. */
export async function currentCaseTypeVersion(tx: Tx, tenant: Tenant, caseTypeId: string): Promise<Result<CaseTypeTarget>> {
  const caseType = await findCaseType(tx, tenant, caseTypeId);
  return caseTypeTarget(tx, tenant, caseTypeId, caseType?.workflow_version);
}

/**
 * The case type at a current version already read (session creation reads it with its gates);
 * the definition comes from the per-process cache of immutable versions.
 */
export async function caseTypeTarget(db: Executor, tenant: Tenant, caseTypeId: string, workflowVersion: string | undefined): Promise<Result<CaseTypeTarget>> {
  if (workflowVersion === undefined) return fail('not_found', `No case type "${caseTypeId}" in this ${tenant.environment} workspace.`);
  const definition = await loadPinnedDefinition({ db }, { tenant, caseTypeId, workflowVersion });
  return ok({ caseTypeId, workflowVersion, definition });
}

export function externalCaseIdConflict(externalCaseId: string): Failure {
  return failOn('external_case_id', 'external_case_id_conflict', `A case with external_case_id "${externalCaseId}" already exists in this workspace.`);
}

/** `external_case_id` is unique per workspace and environment. */
export async function externalCaseIdFree(tx: Tx, tenant: Tenant, externalCaseId: string | undefined): Promise<Result<void>> {
  if (externalCaseId !== undefined && (await externalCaseIdTaken(tx, tenant, externalCaseId))) {
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
