import { answerText } from '../case-types/field-values.ts';
import type { CaseTypeDefinition, FactDefinition, GateRule, UploadNode } from '../case-types/definition.ts';
import { factsForDocumentKind } from '../extraction/index.ts';
import { normalizeText } from '../cases/gate-normalize.ts';
import type { SampleAddress, SampleOutcome } from './sample-url.ts';

/** One labelled line of a sample document: the fact's first anchor and its value. */
export interface SampleLine {
  factId: string;
  label: string;
  value: string;
}

/** What a sample document shows, decided from the case type alone: pure, so it is tested without a PDF. */
export interface SamplePlan {
  documentKind: string;
  kindLabel: string;
  caseTypeName: string;
  outcome: SampleOutcome;
  /** Empty for `unreadable`, whose page has no text at all. */
  lines: SampleLine[];
  /** `missing_fact`: the required fact left off the page. */
  omittedFactId?: string;
  /** `gate_mismatch`: the fact given a failing value, and the rule it fails. */
  mismatch?: { factId: string; ruleId: string };
}

export interface SamplePlanInput {
  definition: CaseTypeDefinition;
  address: SampleAddress;
  /** The case's answers as they stand (pre-fill overlaid by the applicant's or /process's inputs). */
  answers: Record<string, unknown>;
  now: Date;
}

export type SamplePlanResult = { ok: true; value: SamplePlan } | { ok: false; message: string };

/** Which outcomes a document kind can show: `missing_fact` needs a required fact, `gate_mismatch` a gate comparing one. */
export function availableOutcomes(definition: CaseTypeDefinition, documentKind: string): SampleOutcome[] {
  const facts = factsForDocumentKind(definition.facts, documentKind);
  const outcomes: SampleOutcome[] = ['all_facts'];
  if (omittableFact(definition, facts)) outcomes.push('missing_fact');
  if (comparedFact(definition, facts, {})) outcomes.push('gate_mismatch');
  outcomes.push('unreadable', 'slow');
  return outcomes;
}

/** The document kind an address names: a kind of an upload node, or an upload node (its first kind). */
export function resolveSampleKind(definition: CaseTypeDefinition, kindOrNode: string): UploadNode['documents'][number] | undefined {
  const uploads = definition.workflow.nodes.filter((n): n is UploadNode => n.type === 'upload');
  for (const node of uploads) {
    const kind = node.documents.find((d) => d.document_kind === kindOrNode);
    if (kind) return kind;
  }
  return uploads.find((n) => n.node_id === kindOrNode)?.documents[0];
}

export function planSampleDocument(input: SamplePlanInput): SamplePlanResult {
  const { definition, address, answers, now } = input;
  if (address.caseTypeId !== definition.case_type_id) {
    return { ok: false, message: `names case type ${address.caseTypeId}, but the case is of case type ${definition.case_type_id}` };
  }
  const kind = resolveSampleKind(definition, address.kindOrNode);
  if (!kind) return { ok: false, message: `names "${address.kindOrNode}", which is neither a document kind nor an upload step of case type ${definition.case_type_id}` };
  const facts = factsForDocumentKind(definition.facts, kind.document_kind);
  const base = { documentKind: kind.document_kind, kindLabel: kind.label, caseTypeName: definition.name, outcome: address.outcome };
  if (address.outcome === 'unreadable') return { ok: true, value: { ...base, lines: [] } };

  const rules = gateRules(definition);
  // Two facts of one type (two names, two dates) get different values, so neither is read as the other.
  const lines = facts.map((fact) => {
    const index = facts.filter((f) => f.type === fact.type).indexOf(fact);
    return { factId: fact.fact_id, label: fact.anchors[0]!, value: passingValue(fact, index, rules, answers, now) };
  });
  if (address.outcome === 'missing_fact') {
    const omitted = omittableFact(definition, facts);
    if (!omitted) return { ok: false, message: `cannot show missing_fact: no fact of document kind ${kind.document_kind} is required` };
    return { ok: true, value: { ...base, lines: lines.filter((l) => l.factId !== omitted.fact_id), omittedFactId: omitted.fact_id } };
  }
  if (address.outcome === 'gate_mismatch') {
    const compared = comparedFact(definition, facts, answers);
    if (!compared) return { ok: false, message: `cannot show gate_mismatch: no gate of case type ${definition.case_type_id} compares a fact of document kind ${kind.document_kind}` };
    const value = failingValue(compared.fact, compared.rule, answers, now);
    return {
      ok: true,
      value: { ...base, lines: lines.map((l) => (l.factId === compared.fact.fact_id ? { ...l, value } : l)), mismatch: { factId: compared.fact.fact_id, ruleId: compared.rule.rule_id } },
    };
  }
  return { ok: true, value: { ...base, lines } };
}

function gateRules(definition: CaseTypeDefinition): GateRule[] {
  return definition.workflow.nodes.flatMap((n) => (n.type === 'gate' ? n.rules : []));
}

/** The fact `missing_fact` leaves out: a required one a `required` rule names (so a gate asks for it), else any required one. */
function omittableFact(definition: CaseTypeDefinition, facts: readonly FactDefinition[]): FactDefinition | undefined {
  const askedFor = new Set(gateRules(definition).flatMap((r) => (r.type === 'required' ? r.fact_ids : [])));
  return facts.find((f) => f.required && askedFor.has(f.fact_id)) ?? facts.find((f) => f.required);
}

type ComparingRule = Exclude<GateRule, { type: 'required' }>;

/**
 * The fact and rule `gate_mismatch` fails: a name (or other answer) the applicant gave comes first,
 * as that is the mismatch people test for; then rules that fail on the document alone (a date too
 * old, an amount out of range, a value not in the list); last an answer not given yet, which the
 * applicant may still give.
 */
function comparedFact(definition: CaseTypeDefinition, facts: readonly FactDefinition[], answers: Record<string, unknown>): { fact: FactDefinition; rule: ComparingRule } | undefined {
  const byId = new Map(facts.map((f) => [f.fact_id, f]));
  const comparing = gateRules(definition).filter((r): r is ComparingRule => r.type !== 'required' && byId.has(r.fact_id));
  const rank = (r: ComparingRule) => {
    if (r.type !== 'matches_input') return 2;
    if (answerText(answers[r.field_id]) === undefined) return 3;
    return byId.get(r.fact_id)!.type === 'name' ? 0 : 1;
  };
  const rule = [...comparing].sort((a, b) => rank(a) - rank(b))[0];
  return rule ? { fact: byId.get(rule.fact_id)!, rule } : undefined;
}

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** "March 14, 2026": spelled out, so the date reads the same in every day/month convention. */
function spelled(date: Date): string {
  return `${MONTH_NAMES[date.getUTCMonth()]} ${date.getUTCDate()}, ${date.getUTCFullYear()}`;
}

const daysBefore = (now: Date, days: number) => new Date(now.getTime() - days * 86_400_000);

function money(amount: number): string {
  return `$${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** Plausible values per fact type; the index varies them when a document has two facts of a type. */
const NAMES = ['Jane Doe', 'Samuel Okafor', 'Maria Lopez'];
const OTHER_NAMES = ['Robert Miller', 'Linda Chen'];
const ADDRESSES = ['1200 Harbor Way, Oakland, CA 94607', '48 Elm Street, Springfield, IL 62704'];
const STRINGS = ['Northwind Logistics LLC', 'Contoso Utilities', 'Fabrikam Housing'];

/** A value every gate comparing this fact accepts: the applicant's own answer, a recent date, an amount in range. */
function passingValue(fact: FactDefinition, index: number, rules: readonly GateRule[], answers: Record<string, unknown>, now: Date): string {
  const mine = rules.filter((r): r is ComparingRule => r.type !== 'required' && r.fact_id === fact.fact_id);
  for (const rule of mine) {
    if (rule.type === 'matches_input') {
      const given = answerText(answers[rule.field_id]);
      if (given !== undefined) return fact.type === 'money' ? moneyText(given) : fact.type === 'name' ? capitalised(given) : given;
    }
    if (rule.type === 'one_of') return rule.values[0]!;
  }
  switch (fact.type) {
    case 'name':
      return NAMES[index % NAMES.length]!;
    case 'address':
      return ADDRESSES[index % ADDRESSES.length]!;
    case 'date':
      return spelled(daysBefore(now, 2 + index));
    case 'money':
    case 'number': {
      const min = Math.max(...mine.flatMap((r) => (r.type === 'min' ? [r.value] : [])), -Infinity);
      const max = Math.min(...mine.flatMap((r) => (r.type === 'max' ? [r.value] : [])), Infinity);
      let amount = fact.type === 'money' ? 2451 : 12;
      if (amount < min) amount = Number.isFinite(max) ? (min + max) / 2 : min * 1.25 + 1;
      if (amount > max) amount = Number.isFinite(min) ? (min + max) / 2 : max * 0.8;
      return fact.type === 'money' ? money(amount) : String(Math.round(amount * 100) / 100);
    }
    case 'id_number':
      return `AB-${482139 + index}`;
    case 'string':
      return STRINGS[index % STRINGS.length]!;
  }
}

/** A name typed as "jane doe" is printed "Jane Doe", as documents print names. */
function capitalised(name: string): string {
  return name.replace(/(^|[\s'-])(\p{Ll})/gu, (_, before: string, letter: string) => `${before}${letter.toUpperCase()}`);
}

/** An answer typed as "2400" reads as "$2,400.00" on a document. */
function moneyText(given: string): string {
  const n = Number(given.replace(/[^0-9.-]/g, ''));
  return Number.isFinite(n) && given.trim() !== '' ? money(n) : given;
}

/** A value the rule refuses, plausible on a real document. */
function failingValue(fact: FactDefinition, rule: ComparingRule, answers: Record<string, unknown>, now: Date): string {
  switch (rule.type) {
    case 'matches_input': {
      const given = normalizeText(answerText(answers[rule.field_id]) ?? '');
      const pool = fact.type === 'name' ? OTHER_NAMES : fact.type === 'address' ? ADDRESSES : fact.type === 'date' ? [spelled(daysBefore(now, 400)), spelled(daysBefore(now, 800))] : ['Southridge Partners', 'Tailspin Toys'];
      return pool.find((v) => normalizeText(v) !== given) ?? pool[0]!;
    }
    case 'within_days':
      return spelled(daysBefore(now, rule.days + 30));
    case 'min':
      return fact.type === 'money' ? money(Math.max(0, rule.value / 2 - 1)) : String(Math.floor(rule.value / 2 - 1));
    case 'max':
      return fact.type === 'money' ? money(rule.value * 2 + 100) : String(Math.ceil(rule.value * 2 + 1));
    case 'one_of':
      return STRINGS.find((v) => !rule.values.some((allowed) => normalizeText(allowed) === normalizeText(v))) ?? 'Unlisted value';
  }
}
