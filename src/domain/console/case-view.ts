import type { Deps } from '../deps.ts';
import { listCaseEvents } from '../../storage/case-events.ts';
import { selectCaseFactCorrections } from '../../storage/fact-corrections.ts';
import { selectOperatorEmails } from '../../storage/operators.ts';
import { findPageText } from '../../storage/page-images.ts';
import type { PageImageMeta } from '../../storage/page-images.ts';
import type { Executor } from '../../storage/schema.ts';
import type { FactStatus, FactSource } from '../cases/case-state.ts';
import { caseNotFound } from '../cases/read-case.ts';
import { loadCaseState } from '../cases/load-case.ts';
import { renderCaseRecord, type CaseRecord } from '../cases/case-record.ts';
import { getDeliveryDetail, type DeliverySummary } from '../webhooks/delivery-log.ts';
import { ok, type Result } from '../errors.ts';
import { ensurePageImage } from './page-images.ts';
import type { BlobStore } from '../../ports/blob-store.ts';
import type { Tenant } from '../../ports/tenant.ts';

export type ConsoleFact = CaseRecord['workspace']['facts'][number];
export type ConsoleDocument = CaseRecord['workspace']['documents'][number];
export type EvidenceItem = ConsoleFact['evidence'][number];

export interface CorrectionView {
  correctionId: string;
  previousValue: string | null;
  previousStatus: FactStatus;
  previousSource: FactSource | null;
  newValue: string | null;
  newStatus: FactStatus;
  /** What the previous value was read from (an operator's correction clears the fact's own); `[]` when nothing, or erased. */
  previousEvidence: EvidenceItem[];
  reason: string | null;
  actor: string;
  actorLabel: string;
  at: Date;
}

export interface TimelineEvent {
  cursor: number;
  eventType: string;
  at: Date;
  actorLabel: string | null;
  /** For `case.assigned`: who was given the case, in words. */
  assigneeLabel?: string;
  data: Record<string, unknown>;
}

/** Where an evidence item points in its page: the canonical-text offsets, and a box when extraction drew one. */
export interface EvidenceBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface EvidenceView {
  fact: ConsoleFact;
  /**
   * The evidence shown: the fact's own, or, when a correction left the fact without any, the
   * evidence the replaced value was read from (then `before` is that correction).
   */
  items: EvidenceItem[];
  before: CorrectionView | undefined;
  evidenceIndex: number;
  document: ConsoleDocument | undefined;
  /** The page shown (the evidence page unless the operator paged away). */
  pageIndex: number;
  pageCount: number;
  /** The page the evidence is on. */
  evidencePageIndex: number;
  pageText: string | undefined;
  /** The quote's offsets in `pageText`, when the shown page is the evidence page. */
  mark: { start: number; end: number } | undefined;
  box: EvidenceBox | undefined;
  image: PageImageMeta | null;
}

export interface ConsoleCase {
  record: CaseRecord;
  /** The reason given with the decision, when there was one. */
  decisionReason: string | null;
  /** Who has taken the case, by id and email (issue 27 §3). */
  assignee: { operatorId: string; label: string } | null;
  corrections: Record<string, CorrectionView[]>;
  timeline: TimelineEvent[];
  /** The handoff's delivery, when the case has one and it is still kept (pruned deliveries are gone). */
  handoffDelivery: HandoffDelivery | null;
  /** Facts an operator should look at: blocking ones, and any not resolved. */
  flaggedFactIds: string[];
  evidence: EvidenceView | undefined;
}

/** What the case page says about where its handoff stands, and what it links to. */
export interface HandoffDelivery {
  deliveryId: string;
  endpointId: string;
  endpointUrl: string;
  status: DeliverySummary['status'];
  /** Attempts made in the current budget of `maxAttempts`. */
  attemptCount: number;
  maxAttempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  deliveredAt: string | null;
  failedAt: string | null;
}

/**
 * The evidence a fact's value was read from before the corrections that left it without any:
 * the latest correction whose previous value came with evidence. Undefined while the fact has its own.
 */
export function originalEvidenceOf(fact: ConsoleFact, history: readonly CorrectionView[] | undefined): CorrectionView | undefined {
  if (fact.evidence.length > 0 || !history) return undefined;
  return [...history].reverse().find((c) => c.previousEvidence.length > 0);
}

export interface EvidenceSelection {
  factId?: string | undefined;
  evidenceIndex?: number | undefined;
  pageIndex?: number | undefined;
}

const TIMELINE_LIMIT = 1000;

/** The box of an evidence item when it has one (`source.kind === 'box'`, issue 13), in page units. */
export function boxOf(evidence: unknown): (EvidenceBox & { pageIndex: number }) | undefined {
  const source = (evidence as { source?: unknown }).source as Record<string, unknown> | undefined;
  if (!source || source.kind !== 'box') return undefined;
  const { x, y, width, height, page_index } = source;
  if (![x, y, width, height].every((n) => typeof n === 'number' && Number.isFinite(n))) return undefined;
  return { x: x as number, y: y as number, width: width as number, height: height as number, pageIndex: typeof page_index === 'number' ? page_index : (evidence as { page_index: number }).page_index };
}

/** Everything the case page shows, read through the same functions the API reads with. */
export async function readConsoleCase(
  deps: Pick<Deps, 'db' | 'config' | 'clock'> & { blobs: BlobStore },
  input: { tenant: Tenant; caseId: string; selection: EvidenceSelection },
): Promise<Result<ConsoleCase>> {
  const { tenant, caseId, selection } = input;
  // The state, not only the API record: the console also shows the decision's reason, which the
  // record leaves to the package.
  const state = await loadCaseState({ db: deps.db }, { tenant, caseId });
  if (!state) return caseNotFound(caseId);
  const record = renderCaseRecord(state);
  const [correctionRows, events] = await Promise.all([
    selectCaseFactCorrections(deps.db, tenant, caseId),
    listCaseEvents(deps.db, tenant, caseId, 0, TIMELINE_LIMIT),
  ]);
  const operatorIdsOf = (data: Record<string, unknown>) => [data.actor, data.assignee, data.previous].filter((v): v is string => typeof v === 'string' && v !== '');
  const actorIds = new Set<string>([...correctionRows.map((c) => c.actor), ...events.events.flatMap((e) => operatorIdsOf(e.data)), ...(state.assignedTo ? [state.assignedTo] : [])]);
  const labels = await actorLabels(deps.db, tenant.orgId, [...actorIds]);
  const corrections: Record<string, CorrectionView[]> = {};
  for (const c of correctionRows) {
    (corrections[c.fact_id] ??= []).push({
      correctionId: c.correction_id,
      previousValue: c.previous_value,
      previousStatus: c.previous_status,
      previousSource: c.previous_source,
      newValue: c.new_value,
      newStatus: c.new_status,
      previousEvidence: Array.isArray(c.previous_evidence) ? (c.previous_evidence as EvidenceItem[]) : [],
      reason: c.reason,
      actor: c.actor,
      actorLabel: labels.get(c.actor) ?? c.actor,
      at: c.created_at,
    });
  }
  const timeline = events.events.map((e) => ({
    cursor: e.cursor,
    eventType: e.event_type,
    at: e.created_at,
    actorLabel: typeof e.data.actor === 'string' ? (labels.get(e.data.actor) ?? e.data.actor) : null,
    ...(typeof e.data.assignee === 'string' ? { assigneeLabel: labels.get(e.data.assignee) ?? e.data.assignee } : {}),
    data: e.data,
  }));
  let handoffDelivery: ConsoleCase['handoffDelivery'] = null;
  if (record.handoff?.delivery_id) {
    const d = await getDeliveryDetail(deps, { orgId: tenant.orgId, environment: tenant.environment, deliveryId: record.handoff.delivery_id });
    if (d.ok) {
      const v = d.value;
      handoffDelivery = {
        deliveryId: v.delivery_id,
        endpointId: v.endpoint_id,
        endpointUrl: v.endpoint_url,
        status: v.status,
        attemptCount: v.attempt_count,
        maxAttempts: v.max_attempts,
        nextAttemptAt: v.next_attempt_at,
        lastStatusCode: v.last_status_code,
        deliveredAt: v.delivered_at,
        failedAt: v.failed_at,
      };
    }
  }
  const blocking = new Set(record.workspace.operational_summary.blocking_fact_ids);
  const facts = [...record.workspace.facts.filter((f) => blocking.has(f.fact_id)), ...record.workspace.facts.filter((f) => !blocking.has(f.fact_id))];
  record.workspace.facts = facts;
  const flaggedFactIds = facts.filter((f) => blocking.has(f.fact_id) || f.status !== 'resolved').map((f) => f.fact_id);
  const evidence = await evidenceView(deps, tenant, record, corrections, flaggedFactIds, selection);
  const assignee = state.assignedTo ? { operatorId: state.assignedTo, label: labels.get(state.assignedTo) ?? state.assignedTo } : null;
  return ok({ record, decisionReason: state.decisionReason, assignee, corrections, timeline, handoffDelivery, flaggedFactIds, evidence });
}

async function evidenceView(
  deps: Pick<Deps, 'db' | 'clock'> & { blobs: BlobStore },
  tenant: Tenant,
  record: CaseRecord,
  corrections: Record<string, CorrectionView[]>,
  flagged: string[],
  selection: EvidenceSelection,
): Promise<EvidenceView | undefined> {
  const facts = record.workspace.facts;
  const withEvidence = (f: ConsoleFact) => f.evidence.length > 0 || originalEvidenceOf(f, corrections[f.fact_id]) !== undefined;
  // Nothing chosen yet: the first flagged fact that has evidence, else the first fact with any.
  const fact =
    (selection.factId ? facts.find((f) => f.fact_id === selection.factId) : undefined) ??
    facts.find((f) => flagged.includes(f.fact_id) && withEvidence(f)) ??
    facts.find(withEvidence);
  if (!fact) return undefined;
  // An operator's correction clears the fact's evidence: the value it replaced was read from a
  // page, which stays the evidence to look at beside the corrected value.
  const before = originalEvidenceOf(fact, corrections[fact.fact_id]);
  const items = before ? before.previousEvidence : fact.evidence;
  const evidenceIndex = Math.min(Math.max(0, selection.evidenceIndex ?? 0), Math.max(0, items.length - 1));
  const item = items[evidenceIndex];
  const document = item ? record.workspace.documents.find((d) => d.doc_id === item.doc_id) : undefined;
  if (!item || !document) {
    return { fact, items, before, evidenceIndex, document: undefined, pageIndex: 0, pageCount: 0, evidencePageIndex: 0, pageText: undefined, mark: undefined, box: undefined, image: null };
  }
  const pageCount = document.page_count ?? 1;
  const pageIndex = selection.pageIndex !== undefined && selection.pageIndex >= 0 && selection.pageIndex < pageCount ? selection.pageIndex : item.page_index;
  const [pageText, image] = await Promise.all([
    findPageText(deps.db, document.doc_id, pageIndex),
    ensurePageImage(deps, { tenant, ref: { caseId: record.case_id, docId: document.doc_id, pageIndex } }),
  ]);
  const onEvidencePage = pageIndex === item.page_index;
  const { char_start: start, char_end: end } = item.location;
  const mark = onEvidencePage && pageText !== undefined && pageText.slice(start, end) === item.quote ? { start, end } : undefined;
  const box = boxOf(item);
  return {
    fact,
    items,
    before,
    evidenceIndex,
    document,
    pageIndex,
    pageCount,
    evidencePageIndex: item.page_index,
    pageText,
    mark,
    box: box && box.pageIndex === pageIndex ? box : undefined,
    image: image.ok ? image.value : null,
  };
}

/** Operator ids become their email; API key ids stay as they are (the key's id is what the API shows). */
async function actorLabels(db: Executor, orgId: string, ids: string[]): Promise<Map<string, string>> {
  const operatorIds = ids.filter((id) => id.startsWith('op_'));
  if (operatorIds.length === 0) return new Map();
  const rows = await selectOperatorEmails(db, orgId, operatorIds);
  return new Map(rows.map((r) => [r.operator_id, r.email]));
}
