import { z } from 'zod';

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
export const CHOICE_TYPES: readonly FieldType[] = ['select', 'one_of'];

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

export const caseTypeShape = z.strictObject({
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
});

export type CaseTypeDefinition = z.output<typeof caseTypeShape>;
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
