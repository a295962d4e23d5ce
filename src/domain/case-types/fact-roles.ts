import type { CaseTypeDefinition, GateRule, UploadNode } from './definition.ts';

function factIdsOfRule(rule: GateRule): string[] {
  return rule.type === 'required' ? rule.fact_ids : [rule.fact_id];
}

/** Facts some gate rule reads: a value here can pass or fail a gate (a `matches_input` rule is a match). */
export function gateFactIds(definition: CaseTypeDefinition): Set<string> {
  const ids = new Set<string>();
  for (const node of definition.workflow.nodes) if (node.type === 'gate') for (const rule of node.rules) for (const id of factIdsOfRule(rule)) ids.add(id);
  return ids;
}

/**
 * Whether a fact without a value holds a case up: a required fact does, and so does one a gate
 * reads; an optional fact no gate reads never does (issue 26: "Employer" blocked a case).
 */
export function factCanBlock(definition: CaseTypeDefinition, factId: string, gateFacts: ReadonlySet<string> = gateFactIds(definition)): boolean {
  const fact = definition.facts.find((f) => f.fact_id === factId);
  return fact === undefined || fact.required === true || gateFacts.has(factId);
}

/**
 * The facts an upload step's confirm page shows: read from the step's document kinds, and
 * depended on (required, or read by a gate). An optional fact nobody checks is not worth the
 * applicant's time.
 */
export function confirmableFactIds(definition: CaseTypeDefinition, node: UploadNode): string[] {
  const kinds = new Set(node.documents.map((d) => d.document_kind));
  const gateFacts = gateFactIds(definition);
  return definition.facts.filter((f) => f.document_kinds.some((k) => kinds.has(k)) && (f.required === true || gateFacts.has(f.fact_id))).map((f) => f.fact_id);
}
