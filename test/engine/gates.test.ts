import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CaseTypeDefinition, GateNode } from '../../src/domain/case-types/definition.ts';
import type { FactState } from '../../src/domain/cases/case-state.ts';
import { evaluateGate } from '../../src/domain/cases/evaluate-gate.ts';
import { compareNames, daysSince, normalizeText, parseDecimal } from '../../src/domain/cases/gate-normalize.ts';
import { incomeVerification } from '../support/fixtures.ts';

const definition = structuredClone(incomeVerification) as unknown as CaseTypeDefinition;
const now = new Date('2026-06-15T12:00:00.000Z');

function fact(factId: string, value: string | null, status: FactState['status'] = value === null ? 'pending' : 'resolved'): FactState {
  return { factId, label: factId, status, value, candidateId: null, anchorMatchQuality: null, source: null, reasonCodes: [], provenance: [], evidence: [], verificationMetadata: [], updatedAt: now };
}

function gate(rules: GateNode['rules']): GateNode {
  return { node_id: 'g', type: 'gate', title: 'G', rules };
}

const evaluate = (rules: GateNode['rules'], facts: FactState[], inputs: Record<string, unknown> = {}) =>
  evaluateGate(gate(rules), { definition, facts, structuredInputs: inputs, prefill: {}, now });

describe('gate rules', () => {
  it.each<[string, unknown, FactState[], string]>([
    ['required: all resolved', [{ rule_id: 'r', type: 'required', fact_ids: ['pay_date', 'gross_pay'], why: 'w' }], [fact('pay_date', '2026-06-01'), fact('gross_pay', '10')], 'passed'],
    ['required: one pending', [{ rule_id: 'r', type: 'required', fact_ids: ['pay_date', 'gross_pay'], why: 'w' }], [fact('pay_date', '2026-06-01'), fact('gross_pay', null)], 'needs_input'],
    ['required: one failed', [{ rule_id: 'r', type: 'required', fact_ids: ['pay_date'], why: 'w' }], [fact('pay_date', null, 'failed')], 'failed'],
    ['within_days: inside', [{ rule_id: 'r', type: 'within_days', fact_id: 'pay_date', days: 45, why: 'w' }], [fact('pay_date', '2026-06-01')], 'passed'],
    ['within_days: boundary', [{ rule_id: 'r', type: 'within_days', fact_id: 'pay_date', days: 45, why: 'w' }], [fact('pay_date', '2026-05-01')], 'passed'],
    ['within_days: too old', [{ rule_id: 'r', type: 'within_days', fact_id: 'pay_date', days: 45, why: 'w' }], [fact('pay_date', '2026-04-30')], 'failed'],
    ['within_days: future', [{ rule_id: 'r', type: 'within_days', fact_id: 'pay_date', days: 45, why: 'w' }], [fact('pay_date', '2026-07-01')], 'failed'],
    ['within_days: tomorrow is tolerated', [{ rule_id: 'r', type: 'within_days', fact_id: 'pay_date', days: 45, why: 'w' }], [fact('pay_date', '2026-06-16')], 'passed'],
    ['min: above', [{ rule_id: 'r', type: 'min', fact_id: 'gross_pay', value: 1000, why: 'w' }], [fact('gross_pay', '1,500.00')], 'passed'],
    ['min: below', [{ rule_id: 'r', type: 'min', fact_id: 'gross_pay', value: 1000, why: 'w' }], [fact('gross_pay', '999.99')], 'failed'],
    ['max: above', [{ rule_id: 'r', type: 'max', fact_id: 'gross_pay', value: 1000, why: 'w' }], [fact('gross_pay', '1000.01')], 'failed'],
    ['one_of: in (normalised)', [{ rule_id: 'r', type: 'one_of', fact_id: 'employer_name', values: ['ACME Corp.'], why: 'w' }], [fact('employer_name', 'acme corp')], 'passed'],
    ['one_of: out', [{ rule_id: 'r', type: 'one_of', fact_id: 'employer_name', values: ['Acme'], why: 'w' }], [fact('employer_name', 'Globex')], 'failed'],
    ['matches_input: no input', [{ rule_id: 'r', type: 'matches_input', fact_id: 'employee_name', field_id: 'full_name', why: 'w' }], [fact('employee_name', 'Jane Doe')], 'needs_input'],
  ])('%s', (_name, rules, facts, outcome) => {
    expect(evaluate(rules as unknown as GateNode['rules'], [...facts]).outcome).toBe(outcome);
  });

  it('records every rule with its why, and reason codes on the facts', () => {
    const result = evaluate(
      [
        { rule_id: 'present', type: 'required', fact_ids: ['gross_pay'], why: 'Need pay.' },
        { rule_id: 'recent', type: 'within_days', fact_id: 'pay_date', days: 10, why: 'Recent.' },
      ],
      [fact('pay_date', '2026-01-01'), fact('gross_pay', null)],
    );
    expect(result.results.map((r) => [r.rule_id, r.outcome, r.why])).toEqual([
      ['present', 'needs_input', 'Need pay.'],
      ['recent', 'failed', 'Recent.'],
    ]);
    expect(result.outcome).toBe('failed');
    expect(Object.fromEntries(result.factReasonCodes)).toEqual({ gross_pay: ['missing_value'], pay_date: ['older_than_allowed'] });
    expect(result.needsInputFactIds).toEqual(['gross_pay']);
  });
});

describe('normalisation', () => {
  it('compares names by their words, ignoring case, accents, punctuation, order, honorifics and initials', () => {
    expect(compareNames('José  Álvarez', 'jose alvarez')).toMatchObject({ match: true, method: 'exact_normalized' });
    expect(compareNames('Doe, Jane', 'Jane Doe')).toMatchObject({ match: true, method: 'token_set' });
    expect(compareNames('Ms. Jane Doe', 'Jane Doe')).toMatchObject({ match: true });
    expect(compareNames('Jane A. Doe', 'Jane Doe')).toMatchObject({ match: true, method: 'token_set_without_initials' });
    expect(compareNames('Jane Doe', 'John Doe')).toMatchObject({ match: false });
    expect(compareNames('', '')).toMatchObject({ match: false });
  });

  it('normalises idempotently and compares names symmetrically', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(normalizeText(normalizeText(s))).toBe(normalizeText(s));
      }),
    );
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(compareNames(a, b).match).toBe(compareNames(b, a).match);
      }),
    );
  });

  it('parses decimals and day counts', () => {
    expect(parseDecimal('$1,234.50')).toBe(1234.5);
    expect(parseDecimal('abc')).toBeUndefined();
    expect(daysSince('2026-06-14', now)).toBe(1);
    expect(daysSince('2026-13-40', now)).toBeUndefined();
    fc.assert(
      fc.property(fc.integer({ min: -3000, max: 3000 }), (days) => {
        const date = new Date(Date.parse('2026-06-15T00:00:00.000Z') - days * 86_400_000).toISOString().slice(0, 10);
        expect(daysSince(date, now)).toBe(days);
      }),
    );
  });
});
