import { insertFactCorrection } from '../../storage/fact-corrections.ts';
import { caseFacts, saveFact } from './case-facts.ts';
import type { Db } from '../../storage/schema.ts';
import { inTransactionResult } from '../../storage/unit-of-work.ts';
import { toJsonb } from '../../storage/json.ts';
import { fail, ok, type Result } from '../errors.ts';
import { recordCaseEvent } from './case-events.ts';
import type { Cause } from '../../ports/enqueuers.ts';
import { lockCaseRow, type WriterDeps } from './case-writer.ts';
import type { FactStatus } from './case-state.ts';
import { caseNotFound } from './read-case.ts';
import { tenantOfRow, type Tenant } from '../../ports/tenant.ts';

export interface FactCorrection {
  tenant: Tenant;
  caseId: string;
  factId: string;
  /** The corrected value; null clears it. */
  value: string | null;
  /** Defaults to `resolved` for a value and `needs_input` for null. */
  status?: FactStatus;
  reason: string | null;
  actor: string;
  cause: Cause;
}

/**
 * An operator corrects a fact. The previous value, status, source and evidence are kept in
 * fact_corrections; the fact becomes source `operator`; a `fact.corrected` event records who and
 * why (never the values: events outlive erasure). A completed case is closed to corrections.
 */
export async function correctFact(deps: WriterDeps & { db: Db }, input: FactCorrection): Promise<Result<{ correction_id: string }>> {
  const { tenant } = input;
  const now = deps.clock.now();
  return inTransactionResult(deps.db, async (tx) => {
    const row = await lockCaseRow(tx, { tenant, caseId: input.caseId });
    if (!row) return caseNotFound(input.caseId);
    if (row.runtime_status === 'complete') return fail('invalid_request', `Case ${row.case_id} is complete; its facts can no longer be corrected.`);
    const fact = (await caseFacts(tx, row)).find((f) => f.fact_id === input.factId);
    if (!fact) return fail('not_found', `Case ${row.case_id} has no fact ${input.factId}.`);
    const status = input.status ?? (input.value === null ? 'needs_input' : 'resolved');
    if (status === 'resolved' && input.value === null) return fail('invalid_request', 'A resolved fact needs a value.');
    const correctionId = deps.ids.next('fc');
    await insertFactCorrection(tx, {
        correction_id: correctionId,
        case_id: row.case_id,
        org_id: row.org_id,
        environment: row.environment,
        fact_id: fact.fact_id,
        previous_value: fact.value,
        previous_status: fact.status,
        previous_source: fact.source,
        new_value: input.value,
        new_status: status,
        reason: input.reason,
        actor: input.actor,
        created_at: now,
        // Kept with the correction: the console shows what the replaced value was read from.
        previous_evidence: toJsonb(fact.evidence),
      });
    // The operator's value did not come from a document: the old evidence no longer supports it.
    await saveFact(tx, row, fact.fact_id, { value: input.value, status, source: 'operator', corrected_by: 'operator', candidate_id: null, anchor_match_quality: null, evidence: toJsonb([]), provenance: toJsonb([]), updated_at: now });
    await recordCaseEvent(tx, deps, {
      caseRow: row,
      eventType: 'fact.corrected',
      data: { fact_id: fact.fact_id, correction_id: correctionId, previous_status: fact.status, status, actor: input.actor },
      cause: input.cause,
    });
    return ok({ correction_id: correctionId });
  });
}
