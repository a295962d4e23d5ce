import { templateReferences } from './template-references.ts';
import { CHOICE_TYPES, caseTypeShape, jsonPath, type CaseTypeDefinition, type DefinitionProblem } from './definition-shape.ts';
import { translationWarnings, unknownTranslationKeys } from './translations.ts';

// The shape and its types live in definition-shape.ts, so modules that only read definitions
// (translations among them) need not import the checks that use them.
export * from './definition-shape.ts';

/** The shape, and every rule that spans its parts: ids unique, references resolved, texts translated by known keys. */
export const caseTypeDefinitionSchema = caseTypeShape
  .superRefine((def, ctx) => {
    if (def.translations) {
      for (const p of unknownTranslationKeys(def, def.translations)) ctx.addIssue({ code: 'custom', path: p.at, message: p.message });
    }
    const duplicates = (values: string[], path: (i: number) => PropertyKey[], what: string) => {
      const seen = new Set<string>();
      values.forEach((v, i) => {
        if (seen.has(v)) ctx.addIssue({ code: 'custom', path: path(i), message: `duplicate ${what} "${v}"` });
        seen.add(v);
      });
    };
    duplicates(def.facts.map((f) => f.fact_id), (i) => ['facts', i, 'fact_id'], 'fact_id');
    duplicates(def.workflow.nodes.map((n) => n.node_id), (i) => ['workflow', 'nodes', i, 'node_id'], 'node_id');

    // A field id names one answer of the case (structured_inputs), so it is unique across the workflow.
    const allFields = def.workflow.nodes.flatMap((node, n) => (node.type === 'form' ? node.fields.map((f, i) => ({ id: f.field_id, at: ['workflow', 'nodes', n, 'fields', i, 'field_id'] })) : []));
    duplicates(allFields.map((f) => f.id), (i) => allFields[i]!.at, 'field_id');
    def.workflow.nodes.forEach((node, n) => {
      if (node.type !== 'form') return;
      node.fields.forEach((field, i) => {
        const at = (...rest: PropertyKey[]) => ['workflow', 'nodes', n, 'fields', i, ...rest];
        const choice = CHOICE_TYPES.includes(field.type);
        if (choice && !field.options) ctx.addIssue({ code: 'custom', path: at('options'), message: `a ${field.type} field needs options` });
        if (!choice && field.options) ctx.addIssue({ code: 'custom', path: at('options'), message: `options are for select and one_of fields, not ${field.type}` });
        if (field.options) duplicates(field.options, (o) => at('options', o), 'option');
        if (field.currency !== undefined && field.type !== 'money') ctx.addIssue({ code: 'custom', path: at('currency'), message: `currency is for money fields, not ${field.type}` });
        if (field.currency !== undefined && !knownCurrency(field.currency)) ctx.addIssue({ code: 'custom', path: at('currency'), message: `unknown currency "${field.currency}"` });
        const v = field.validation;
        if (v && (v.min !== undefined || v.max !== undefined) && field.type !== 'money' && field.type !== 'number') {
          ctx.addIssue({ code: 'custom', path: at('validation'), message: `min and max are for money and number fields, not ${field.type}` });
        }
        if (v?.pattern !== undefined && !validPattern(v.pattern)) ctx.addIssue({ code: 'custom', path: at('validation', 'pattern'), message: 'is not a valid regular expression' });
      });
    });

    const factIds = new Set(def.facts.map((f) => f.fact_id));
    const fields = new Set<string>();
    const documentKinds = new Set<string>();
    const ruleIds: string[] = [];
    def.workflow.nodes.forEach((node) => {
      if (node.type === 'form') node.fields.forEach((f) => fields.add(f.field_id));
      if (node.type === 'upload') node.documents.forEach((d) => documentKinds.add(d.document_kind));
    });
    def.workflow.nodes.forEach((node, n) => {
      if (node.type !== 'gate') return;
      node.rules.forEach((rule, r) => {
        ruleIds.push(rule.rule_id);
        const at = (...rest: PropertyKey[]) => ['workflow', 'nodes', n, 'rules', r, ...rest];
        const referenced = rule.type === 'required' ? rule.fact_ids : [rule.fact_id];
        referenced.forEach((id, i) => {
          if (!factIds.has(id)) {
            ctx.addIssue({ code: 'custom', path: rule.type === 'required' ? at('fact_ids', i) : at('fact_id'), message: `unknown fact "${id}"` });
          }
        });
        if (rule.type === 'matches_input' && !fields.has(rule.field_id)) {
          ctx.addIssue({ code: 'custom', path: at('field_id'), message: `unknown form field "${rule.field_id}"` });
        }
        if ((rule.type === 'min' || rule.type === 'max') && rule.fact_id) {
          const fact = def.facts.find((f) => f.fact_id === rule.fact_id);
          if (fact && fact.type !== 'money' && fact.type !== 'number') {
            ctx.addIssue({ code: 'custom', path: at('type'), message: `${rule.type} needs a money or number fact, "${fact.fact_id}" is ${fact.type}` });
          }
        }
        if (rule.type === 'within_days') {
          const fact = def.facts.find((f) => f.fact_id === rule.fact_id);
          if (fact && fact.type !== 'date') {
            ctx.addIssue({ code: 'custom', path: at('type'), message: `within_days needs a date fact, "${fact.fact_id}" is ${fact.type}` });
          }
        }
      });
    });
    def.workflow.nodes.forEach((node, n) => {
      if (node.type !== 'action') return;
      for (const [name, template] of Object.entries(node.inputs)) {
        const parsed = templateReferences(template);
        const at = ['workflow', 'nodes', n, 'inputs', name];
        if (!parsed.ok) {
          ctx.addIssue({ code: 'custom', path: at, message: `unknown reference "{{${parsed.unknown}}}" (use facts.<id>.value, inputs.<field_id> or case.<field>)` });
          continue;
        }
        for (const ref of parsed.references) {
          if (ref.kind === 'fact' && !factIds.has(ref.factId)) ctx.addIssue({ code: 'custom', path: at, message: `unknown fact "${ref.factId}"` });
          if (ref.kind === 'input' && !fields.has(ref.fieldId)) ctx.addIssue({ code: 'custom', path: at, message: `unknown form field "${ref.fieldId}"` });
        }
      }
    });
    const seenRules = new Set<string>();
    for (const id of ruleIds) {
      if (seenRules.has(id)) ctx.addIssue({ code: 'custom', path: ['workflow'], message: `duplicate rule_id "${id}"` });
      seenRules.add(id);
    }
    def.facts.forEach((fact, i) => {
      fact.document_kinds.forEach((kind, k) => {
        if (!documentKinds.has(kind)) {
          ctx.addIssue({ code: 'custom', path: ['facts', i, 'document_kinds', k], message: `no upload node accepts document kind "${kind}"` });
        }
      });
    });
  });

function knownCurrency(code: string): boolean {
  return Intl.supportedValuesOf('currency').includes(code);
}

function validPattern(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/**
 * Every problem at once, each with its JSON path: fixing one at a time is a poor way to learn a
 * format. Warnings (texts not yet translated into an applicant locale) do not stop the case type.
 */
export function parseCaseTypeDefinition(input: unknown): { ok: true; value: CaseTypeDefinition; warnings: DefinitionProblem[] } | { ok: false; problems: DefinitionProblem[] } {
  const parsed = caseTypeDefinitionSchema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data, warnings: translationWarnings(parsed.data) };
  return { ok: false, problems: parsed.error.issues.map((i) => ({ path: jsonPath(i.path), message: i.message })) };
}
