import type { CaseTypeDefinition, GateNode, GateRule } from '../case-types/definition.ts';
import type { FactState, GateRuleResult, RuleOutcome } from './case-state.ts';
import { answerText } from '../case-types/field-values.ts';
import { compareNames, daysSince, normalizeText, parseDecimal } from './gate-normalize.ts';

export interface GateInput {
  definition: CaseTypeDefinition;
  facts: readonly FactState[];
  structuredInputs: Record<string, unknown>;
  prefill: Record<string, unknown>;
  now: Date;
}

/** What one rule found, plus what it says about each fact it looked at. */
interface RuleFinding {
  outcome: RuleOutcome;
  detail: Record<string, unknown>;
  factReasons: { factId: string; code: string }[];
  verification?: { factId: string; entry: Record<string, unknown> };
}

export interface GateEvaluation {
  results: GateRuleResult[];
  /** Reason codes per fact, from every rule that found something wrong with it. */
  factReasonCodes: Map<string, string[]>;
  /** verification_metadata entries per fact (matches_input comparisons). */
  factVerifications: Map<string, Record<string, unknown>[]>;
  outcome: RuleOutcome;
  /** Facts whose absence or ambiguity made a rule need input. */
  needsInputFactIds: string[];
}

const worst = (a: RuleOutcome, b: RuleOutcome): RuleOutcome =>
  a === 'failed' || b === 'failed' ? 'failed' : a === 'needs_input' || b === 'needs_input' ? 'needs_input' : 'passed';

function knownValue(fact: FactState | undefined): string | undefined {
  return fact && fact.status === 'resolved' && fact.value !== null && fact.value.trim() !== '' ? fact.value : undefined;
}

/** A fact that is not resolved needs input, unless extraction already failed on it. */
function unresolved(fact: FactState | undefined, factId: string): RuleFinding {
  if (fact?.status === 'failed') return { outcome: 'failed', detail: { fact_status: 'failed' }, factReasons: [{ factId, code: 'fact_failed' }] };
  return { outcome: 'needs_input', detail: { fact_status: fact?.status ?? 'missing' }, factReasons: [{ factId, code: 'missing_value' }] };
}

function inputValue(input: GateInput, fieldId: string): { value: string; source: 'applicant_input' | 'prefill' } | undefined {
  // An address answer is an object of parts: it is compared as one line of text.
  const given = answerText(input.structuredInputs[fieldId]);
  if (given !== undefined) return { value: given, source: 'applicant_input' };
  const prefilled = answerText(input.prefill[fieldId]);
  if (prefilled !== undefined) return { value: prefilled, source: 'prefill' };
  return undefined;
}

function evaluateRule(rule: GateRule, input: GateInput, facts: Map<string, FactState>): RuleFinding {
  switch (rule.type) {
    case 'required': {
      let outcome: RuleOutcome = 'passed';
      const factReasons: RuleFinding['factReasons'] = [];
      const missing: string[] = [];
      for (const id of rule.fact_ids) {
        if (knownValue(facts.get(id)) !== undefined) continue;
        const finding = unresolved(facts.get(id), id);
        outcome = worst(outcome, finding.outcome);
        factReasons.push(...finding.factReasons);
        missing.push(id);
      }
      return { outcome, detail: { missing_fact_ids: missing }, factReasons };
    }
    case 'within_days': {
      const fact = facts.get(rule.fact_id);
      const value = knownValue(fact);
      if (value === undefined) return unresolved(fact, rule.fact_id);
      const age = daysSince(value, input.now);
      if (age === undefined) return { outcome: 'failed', detail: { value, problem: 'not_a_date' }, factReasons: [{ factId: rule.fact_id, code: 'not_a_date' }] };
      // One day of tolerance for time zones: a document dated "tomorrow" in UTC may be today locally.
      if (age < -1) return { outcome: 'failed', detail: { value, age_days: age, max_days: rule.days }, factReasons: [{ factId: rule.fact_id, code: 'date_in_future' }] };
      if (age > rule.days) return { outcome: 'failed', detail: { value, age_days: age, max_days: rule.days }, factReasons: [{ factId: rule.fact_id, code: 'older_than_allowed' }] };
      return { outcome: 'passed', detail: { value, age_days: age, max_days: rule.days }, factReasons: [] };
    }
    case 'matches_input': {
      const fact = facts.get(rule.fact_id);
      const value = knownValue(fact);
      if (value === undefined) return unresolved(fact, rule.fact_id);
      const given = inputValue(input, rule.field_id);
      if (!given) return { outcome: 'needs_input', detail: { field_id: rule.field_id, problem: 'input_missing' }, factReasons: [{ factId: rule.fact_id, code: 'input_missing' }] };
      const fieldType = input.definition.facts.find((f) => f.fact_id === rule.fact_id)?.type;
      const comparison =
        fieldType === 'name'
          ? compareNames(value, given.value)
          : (() => {
              const left = normalizeText(value);
              const right = normalizeText(given.value);
              return { match: left === right && left !== '', method: left === right ? 'exact_normalized' : 'none', left, right };
            })();
      const entry = {
        rule_id: rule.rule_id,
        type: 'matches_input',
        field_id: rule.field_id,
        input_source: given.source,
        fact_value_normalized: comparison.left,
        input_value_normalized: comparison.right,
        method: comparison.method,
        result: comparison.match ? 'match' : 'mismatch',
      };
      return {
        outcome: comparison.match ? 'passed' : 'failed',
        detail: entry,
        factReasons: comparison.match ? [] : [{ factId: rule.fact_id, code: 'input_mismatch' }],
        verification: { factId: rule.fact_id, entry },
      };
    }
    case 'min':
    case 'max': {
      const fact = facts.get(rule.fact_id);
      const value = knownValue(fact);
      if (value === undefined) return unresolved(fact, rule.fact_id);
      const n = parseDecimal(value);
      if (n === undefined) return { outcome: 'failed', detail: { value, problem: 'not_a_number' }, factReasons: [{ factId: rule.fact_id, code: 'not_a_number' }] };
      const ok = rule.type === 'min' ? n >= rule.value : n <= rule.value;
      return {
        outcome: ok ? 'passed' : 'failed',
        detail: { value, [rule.type]: rule.value },
        factReasons: ok ? [] : [{ factId: rule.fact_id, code: rule.type === 'min' ? 'below_minimum' : 'above_maximum' }],
      };
    }
    case 'one_of': {
      const fact = facts.get(rule.fact_id);
      const value = knownValue(fact);
      if (value === undefined) return unresolved(fact, rule.fact_id);
      const ok = rule.values.some((v) => normalizeText(v) === normalizeText(value));
      return { outcome: ok ? 'passed' : 'failed', detail: { value, allowed: rule.values }, factReasons: ok ? [] : [{ factId: rule.fact_id, code: 'not_an_allowed_value' }] };
    }
  }
}

function factIdsOf(rule: GateRule): string[] {
  return rule.type === 'required' ? [...rule.fact_ids] : [rule.fact_id];
}

/** Evaluates every rule of one gate. Pure: the same facts, inputs and day give the same result. */
export function evaluateGate(gate: GateNode, input: GateInput): GateEvaluation {
  const facts = new Map(input.facts.map((f) => [f.factId, f]));
  const factReasonCodes = new Map<string, string[]>();
  const factVerifications = new Map<string, Record<string, unknown>[]>();
  const needsInput = new Set<string>();
  let outcome: RuleOutcome = 'passed';
  const results = gate.rules.map((rule): GateRuleResult => {
    const finding = evaluateRule(rule, input, facts);
    outcome = worst(outcome, finding.outcome);
    for (const { factId, code } of finding.factReasons) {
      const codes = factReasonCodes.get(factId) ?? [];
      if (!codes.includes(code)) codes.push(code);
      factReasonCodes.set(factId, codes);
      if (finding.outcome === 'needs_input') needsInput.add(factId);
    }
    if (finding.verification) {
      const list = factVerifications.get(finding.verification.factId) ?? [];
      list.push(finding.verification.entry);
      factVerifications.set(finding.verification.factId, list);
    }
    return { gate_id: gate.node_id, rule_id: rule.rule_id, type: rule.type, outcome: finding.outcome, why: rule.why, fact_ids: factIdsOf(rule), detail: finding.detail };
  });
  return { results, factReasonCodes, factVerifications, outcome, needsInputFactIds: [...needsInput] };
}
