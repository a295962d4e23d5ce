import { z } from 'zod';
import { templateReferences } from '../connectors/templates.ts';
import { translationWarnings, unknownTranslationKeys } from './translations.ts';

/**
 * The case type format of contract §7, as in shared/examples/case-types: facts to extract,
 * and an ordered workflow of form, upload, gate and review nodes. Unknown keys are refused so a
 * typo (`anchor` for `anchors`) is reported instead of silently ignored.
 */
const identifier = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be lower_snake_case, starting with a letter, at most 64 characters');
const sentence = z.string().trim().min(1).max(500);

export const FACT_TYPES = ['string', 'name', 'date', 'money', 'number', 'id_number', 'address'] as const;
export type FactType = (typeof FACT_TYPES)[number];

/**
 * Form field types. `select` is a drop-down and `one_of` the same choice as radios (better below
 * about eight options); both need `options`. `address` is one answer of several labelled parts,
 * stored as an object (see field-values.ts). `currency` (ISO 4217) is for `money` only.
 */
export const FIELD_TYPES = ['text', 'email', 'date', 'money', 'number', 'phone', 'select', 'one_of', 'checkbox', 'address', 'textarea'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
const CHOICE_TYPES: readonly FieldType[] = ['select', 'one_of'];

const factDefinition = z.strictObject({
  fact_id: identifier,
  label: sentence,
  type: z.enum(FACT_TYPES),
  required: z.boolean().default(false),
  document_kinds: z.array(identifier).default([]),
  anchors: z.array(z.string().trim().min(1).max(100)).min(1).max(20),
});

const formField = z.strictObject({
  field_id: identifier,
  label: sentence,
  /** Help shown under the label ("As it appears on your passport"). */
  hint: sentence.optional(),
  type: z.enum(FIELD_TYPES),
  required: z.boolean().default(false),
  options: z.array(z.string().trim().min(1).max(200)).min(1).max(100).optional(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 currency code in capitals, like USD').optional(),
  validation: z
    .strictObject({
      pattern: z.string().optional(),
      min: z.number().optional(),
      max: z.number().optional(),
      min_length: z.number().int().nonnegative().optional(),
      max_length: z.number().int().positive().optional(),
    })
    .optional(),
});

const uploadDocument = z.strictObject({
  document_kind: identifier,
  label: sentence,
  required: z.boolean().default(false),
  accept: z
    .array(z.enum(['application/pdf', 'image/png', 'image/jpeg', 'text/plain', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document']))
    .min(1),
  max_files: z.number().int().min(1).max(20).default(1),
});

const ruleBase = { rule_id: identifier, why: sentence };
const gateRule = z.discriminatedUnion('type', [
  z.strictObject({ ...ruleBase, type: z.literal('required'), fact_ids: z.array(identifier).min(1) }),
  z.strictObject({ ...ruleBase, type: z.literal('within_days'), fact_id: identifier, days: z.number().int().positive() }),
  z.strictObject({ ...ruleBase, type: z.literal('matches_input'), fact_id: identifier, field_id: identifier }),
  z.strictObject({ ...ruleBase, type: z.literal('min'), fact_id: identifier, value: z.number() }),
  z.strictObject({ ...ruleBase, type: z.literal('max'), fact_id: identifier, value: z.number() }),
  z.strictObject({ ...ruleBase, type: z.literal('one_of'), fact_id: identifier, values: z.array(z.string().min(1)).min(1) }),
]);

/** When an action node calls its connector (issue 14): the case event that triggers it. */
export const ACTION_TRIGGERS = ['on_submit', 'on_decision_ready', 'on_approved', 'on_rejected', 'on_complete'] as const;
export type ActionTrigger = (typeof ACTION_TRIGGERS)[number];

const actionNodeFields = {
  connector_key: z.string().regex(/^[a-z][a-z0-9_]{1,63}$/, 'must be a connector key'),
  operation_id: z.string().min(1).max(128),
  when: z.enum(ACTION_TRIGGERS),
  /** Operation parameter or body field name → template (`{{facts.net_income.value}}`). */
  inputs: z.record(z.string().regex(/^[A-Za-z0-9_.-]{1,200}$/, 'must be a parameter or body field name'), z.string().max(2000)).default({}),
  store_response: z
    .strictObject({
      /** Where in the JSON answer: a JSON pointer (`/id`) or a simple path (`$.data.id`). */
      field: z.string().min(1).max(500),
      as: z.string().regex(/^(external_reference|structured_input:[a-z][a-z0-9_]{0,63})$/, 'must be external_reference or structured_input:<key>'),
    })
    .optional(),
};

const nodeBase = { node_id: identifier, title: sentence };
const workflowNode = z.discriminatedUnion('type', [
  z.strictObject({ ...nodeBase, type: z.literal('form'), fields: z.array(formField).min(1) }),
  z.strictObject({
    ...nodeBase,
    type: z.literal('upload'),
    documents: z.array(uploadDocument).min(1),
    /** After the step's files are read, the applicant confirms (or corrects) the values gates and operators depend on (issue 26). */
    confirm_extracted: z.boolean().default(false),
  }),
  z.strictObject({ ...nodeBase, type: z.literal('gate'), rules: z.array(gateRule).min(1) }),
  z.strictObject({ ...nodeBase, type: z.literal('review') }),
  z.strictObject({ ...nodeBase, type: z.literal('action'), ...actionNodeFields }),
]);

export const caseTypeDefinitionSchema = z
  .strictObject({
    case_type_id: identifier,
    name: sentence,
    operating_mode: z.enum(['system_of_action', 'system_of_record']),
    facts: z.array(factDefinition).min(1),
    workflow: z.strictObject({
      workflow_id: identifier,
      nodes: z.array(workflowNode).min(1),
    }),
    /** Documents are erased this many days after a case completes; null keeps them even when DOCUMENT_RETENTION_DAYS is set. */
    retention: z.strictObject({ documents_days: z.number().int().positive().max(36_500).nullable() }).optional(),
    /** The applicant's last page: what happens next, in the case type's words (a default per operating mode otherwise). */
    finish: z.strictObject({ what_happens_next: z.string().trim().min(1).max(1000) }).optional(),
    /** Applicant-facing texts in other locales, by key (see translations.ts for the keys). */
    translations: z
      .record(z.string().regex(/^[a-z]{2}$/, 'must be a two-letter language code, like fr'), z.record(z.string().min(1).max(300), z.string().trim().min(1).max(1000)))
      .optional(),
  })
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

export type CaseTypeDefinition = z.output<typeof caseTypeDefinitionSchema>;
export type FactDefinition = CaseTypeDefinition['facts'][number];
export type WorkflowNode = CaseTypeDefinition['workflow']['nodes'][number];
export type GateNode = Extract<WorkflowNode, { type: 'gate' }>;
export type GateRule = GateNode['rules'][number];
export type FormNode = Extract<WorkflowNode, { type: 'form' }>;
export type FormField = FormNode['fields'][number];
export type UploadNode = Extract<WorkflowNode, { type: 'upload' }>;
export type ActionNode = Extract<WorkflowNode, { type: 'action' }>;

export interface DefinitionProblem {
  /** JSONPath of the offending value, e.g. `$.workflow.nodes[2].rules[0].fact_id`. */
  path: string;
  message: string;
}

export function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : `${acc}.${String(p)}`), '$');
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
