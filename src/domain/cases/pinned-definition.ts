import { tenantOfRow } from '../../ports/tenant.ts';
import type { CaseRow } from '../../storage/cases.ts';
import type { Executor } from '../../storage/schema.ts';
import { loadPinnedDefinition } from '../case-types/case-types.ts';
import type { CaseTypeDefinition } from '../case-types/definition.ts';

/** The workflow version a case is pinned to (cached per process: versions never change). */
export function pinnedDefinition(db: Executor, row: CaseRow): Promise<CaseTypeDefinition> {
  return loadPinnedDefinition({ db }, { tenant: tenantOfRow(row), caseTypeId: row.case_type_id, workflowVersion: row.workflow_version });
}
