import type { CaseRow, FactRow } from '../../storage/cases.ts';
import { selectCaseFacts, upsertFactRow, type FactChanges } from '../../storage/facts.ts';
import type { Executor, Tx } from '../../storage/schema.ts';
import { tenantOfRow } from '../../ports/tenant.ts';
import type { CaseTypeDefinition } from '../case-types/definition.ts';
import type { FactDefinition } from '../case-types/definition-shape.ts';
import { toJsonb } from '../../storage/json.ts';
import { pinnedDefinition } from './pinned-definition.ts';

/*
 * A fact row appears when there is something to say (issue 29, part D: a new case wrote one
 * `pending` row per fact of its type, most of a creation's rows). A fact of the case's type with no
 * row is pending, exactly as the row a creation used to write: its label from the pinned
 * definition, nothing found, no reasons, dated when the case was created. Cases created before
 * this still have their pending rows, which read the same.
 */

type CaseOfFacts = Pick<CaseRow, 'case_id' | 'org_id' | 'environment' | 'created_at'>;

/** The pending fact a case of this type has until something is said about it. */
export function pendingFact(row: CaseOfFacts, fact: Pick<FactDefinition, 'fact_id' | 'label'>): FactRow {
  return {
    case_id: row.case_id,
    fact_id: fact.fact_id,
    org_id: row.org_id,
    environment: row.environment,
    fact_label: fact.label,
    status: 'pending',
    value: null,
    candidate_id: null,
    anchor_match_quality: null,
    corrected_by: null,
    source: null,
    reason_codes: [],
    provenance: [],
    evidence: [],
    verification_metadata: [],
    updated_at: row.created_at,
  };
}

/** Every fact of the case in its definition's order: the stored row, or the pending one. */
export function withPendingFacts(row: CaseOfFacts, definition: Pick<CaseTypeDefinition, 'facts'>, stored: readonly FactRow[]): FactRow[] {
  const byId = new Map(stored.map((f) => [f.fact_id, f]));
  const facts = definition.facts.map((f) => byId.get(f.fact_id) ?? pendingFact(row, f));
  // A stored fact its definition does not name (none is written so) is kept rather than hidden.
  const named = new Set(definition.facts.map((f) => f.fact_id));
  return [...facts, ...stored.filter((f) => !named.has(f.fact_id))];
}

/** Every fact of a case, pending ones included. */
export async function caseFacts(db: Executor, row: CaseRow): Promise<FactRow[]> {
  return withPendingFacts(row, await pinnedDefinition(db, row), await selectCaseFacts(db, tenantOfRow(row), row.case_id));
}

/**
 * Changes one fact, writing its row if it has none yet (then starting from the pending fact).
 * `onlyIfStatus` leaves it alone unless its status is one of those; a fact with no row is pending.
 */
export async function saveFact(
  tx: Tx,
  row: CaseRow,
  factId: string,
  changes: FactChanges,
  onlyIfStatus?: readonly FactRow['status'][],
): Promise<void> {
  const fact = (await pinnedDefinition(tx, row)).facts.find((f) => f.fact_id === factId);
  const pending = fact ? pendingFact(row, fact) : undefined;
  const base = pending && (!onlyIfStatus || onlyIfStatus.includes('pending'))
    ? { ...pending, reason_codes: toJsonb(pending.reason_codes), provenance: toJsonb(pending.provenance), evidence: toJsonb(pending.evidence), verification_metadata: toJsonb(pending.verification_metadata) }
    : undefined;
  await upsertFactRow(tx, tenantOfRow(row), { caseId: row.case_id, factId }, changes, { insertFrom: base, onlyIfStatus });
}
