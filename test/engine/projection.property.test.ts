import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CaseState, FactState, GateRuleResult } from '../../src/domain/cases/case-state.ts';
import { renderCaseRecord } from '../../src/domain/cases/case-record.ts';
import { projectCase } from '../../src/domain/cases/projection.ts';
import { RUNTIME_STATUSES } from '../../src/domain/cases/state-machine.ts';
import { WHY_HERE } from '../../src/domain/cases/queue.ts';
import { incomeVerification } from '../support/fixtures.ts';
import { factCanBlock } from '../../src/domain/case-types/fact-roles.ts';
import type { CaseTypeDefinition } from '../../src/domain/case-types/definition.ts';

const definition = incomeVerification as unknown as CaseTypeDefinition;
const factIds = definition.facts.map((f) => f.fact_id);
const at = new Date('2026-06-15T12:00:00.000Z');

const factArb = (factId: string) =>
  fc.record({
    status: fc.constantFrom('pending', 'resolved', 'needs_input', 'failed'),
    value: fc.option(fc.string({ maxLength: 12 }), { nil: null }),
    reasonCodes: fc.array(fc.constantFrom('missing_value', 'input_mismatch', 'conflicting_candidates'), { maxLength: 2 }),
  }).map(
    (f): FactState => ({
      factId,
      label: factId,
      status: f.status as FactState['status'],
      value: f.value,
      candidateId: null,
      anchorMatchQuality: null,
      source: null,
      reasonCodes: f.reasonCodes,
      provenance: [],
      evidence: [],
      verificationMetadata: [],
      updatedAt: at,
    }),
  );

const ruleArb = fc.record({
  rule_id: fc.constantFrom('facts_present', 'recent_pay_stub', 'name_matches'),
  outcome: fc.constantFrom('passed', 'failed', 'needs_input'),
  fact_ids: fc.subarray(factIds, { minLength: 1 }),
}).map((r): GateRuleResult => ({ gate_id: 'checks', rule_id: r.rule_id, type: 'required', outcome: r.outcome as GateRuleResult['outcome'], why: 'why', fact_ids: r.fact_ids, detail: {} }));

const stateArb = fc
  .record({
    runtimeStatus: fc.constantFrom(...RUNTIME_STATUSES),
    facts: fc.subarray(factIds).chain((ids) => fc.tuple(...ids.map(factArb))),
    gateResults: fc.array(ruleArb, { maxLength: 3 }),
    docStatuses: fc.array(fc.constantFrom('uploaded', 'processing', 'processed', 'failed', 'erased'), { maxLength: 3 }),
    sessionStatus: fc.option(fc.constantFrom('open', 'submitted', 'expired'), { nil: null }),
    origin: fc.constantFrom('session', 'process'),
    caseStatus: fc.constantFrom('approved', 'rejected', 'decision_ready', 'abandoned'),
    handoff: fc.option(fc.constantFrom('dispatching', 'delivered', 'dispatch_failed', 'acknowledged'), { nil: null }),
  })
  .map(
    (s): CaseState => ({
      caseId: 'case_x',
      orgId: 'org_x',
      environment: 'test',
      caseTypeId: 'income_verification',
      workflowId: 'income_verification',
      workflowVersion: 'v1',
      operatingMode: 'system_of_action',
      runtimeStatus: s.runtimeStatus,
      origin: s.origin as CaseState['origin'],
      externalCaseId: null,
      externalApplicantId: null,
      externalCustomerId: null,
      metadata: {},
      locale: null,
      structuredInputs: {},
      prefill: {},
      currentNodeId: 'checks',
      currentGateId: 'checks',
      gateResults: s.gateResults,
      caseStatus: s.runtimeStatus === 'complete' ? (s.caseStatus as CaseState['caseStatus']) : null,
      decisionReason: null,
      assignedTo: null,
      completedAt: null,
      handoff: s.handoff ? { handoffState: s.handoff as never, deliveryId: 'dlv_1', acknowledgedAt: null } : null,
      statusChangedAt: at,
      createdAt: at,
      updatedAt: at,
      definition,
      facts: [...s.facts].reverse(),
      documents: s.docStatuses.map((status, i) => ({
        docId: `doc_${i}`, documentKind: 'pay_stub', filename: null, status: status as never, failureReason: status === 'failed' ? 'fetch_failed' : null,
        mimeType: null, byteSize: null, sha256: null, pageCount: null, createdAt: at, updatedAt: at,
      })),
      jobs: [],
      session: s.sessionStatus ? { sessionId: 's', status: s.sessionStatus as never, expiresAt: at, submittedAt: null, createdAt: at } : null,
    }),
  );

describe('projection properties', () => {
  it('never contradicts itself', () => {
    fc.assert(
      fc.property(stateArb, (state) => {
        const p = projectCase(state);
        const count = (status: string) => state.facts.filter((f) => f.status === status).length;
        expect(p.counts).toEqual({ resolved: count('resolved'), needsInput: count('needs_input'), failed: count('failed'), documents: state.documents.length });
        expect(p.hasNeedsInputFacts).toBe(count('needs_input') > 0);
        expect(p.hasFailedFacts).toBe(count('failed') > 0);
        expect(p.whyHere).toBe(WHY_HERE[p.whyHereCode]);

        // Blocking fact ids: unique, known, in the case type's order, and mentioned by a blocking item.
        expect(new Set(p.blockingFactIds).size).toBe(p.blockingFactIds.length);
        const order = p.blockingFactIds.map((id) => factIds.indexOf(id));
        expect(order).toEqual([...order].sort((a, b) => a - b));
        for (const id of p.blockingFactIds) expect(p.blockingItems.some((b) => b.fact_ids.includes(id))).toBe(true);

        if (state.runtimeStatus === 'complete') {
          expect(p.queueCategory).toBe('done');
          expect(p.queueStatus).toBe('closed');
          expect(p.blockingItems).toEqual([]);
          expect(p.blockingFactIds).toEqual([]);
        } else {
          for (const f of state.facts) {
            if (f.status !== 'needs_input' && f.status !== 'failed') continue;
            // An optional fact no gate reads never blocks (issue 26); every other one does.
            if (factCanBlock(definition, f.factId)) expect(p.blockingFactIds).toContain(f.factId);
            else expect(p.blockingItems.filter((b) => b.kind === 'fact' && b.id === f.factId)).toEqual([]);
          }
          expect(p.queueCategory).not.toBe('done');
        }
        const expectedCategories: Record<string, string[]> = {
          intake_in_progress: ['intake', 'follow_up'],
          processing: ['processing'],
          gate_ready: ['processing'],
          gate_evaluating: ['processing'],
          ready_for_review: ['review', 'exception'],
          complete: ['done'],
        };
        expect(expectedCategories[state.runtimeStatus]).toContain(p.queueCategory);
        if (p.queueCategory === 'review') expect(p.blockingItems.filter((b) => b.kind === 'rule')).toEqual([]);
        if (state.gateResults.some((r) => r.outcome === 'failed') && state.runtimeStatus === 'ready_for_review') expect(p.queueCategory).toBe('exception');
        expect((p.primaryAction !== null)).toBe(p.queueCategory === 'review' || p.queueCategory === 'exception');

        // Every view renders the same projection.
        const record = renderCaseRecord(state);
        const reason = record.workspace.operational_summary.reason;
        expect(record.queue_row).toMatchObject({
          queue_category: reason.queue_category,
          queue_status: reason.queue_status,
          why_here: reason.why_here,
          why_here_code: reason.why_here_code,
          blocking_items: record.workspace.operational_summary.blocking_items,
          blocking_fact_ids: record.workspace.operational_summary.blocking_fact_ids,
          runtime_status: record.runtime_status,
        });
        expect(record.workspace.summary).toEqual({ resolved_count: p.counts.resolved, needs_input_count: p.counts.needsInput, failed_count: p.counts.failed, document_count: p.counts.documents });
        expect(renderCaseRecord(state)).toEqual(record);
      }),
      { numRuns: 500 },
    );
  });
});
