import type { Failure } from '../errors.ts';
import { parseTypedMoney } from '../parsers/money.ts';
import type { CaseTypeDefinition, FactType, FormField } from './definition.ts';
import { ADDRESS_PARTS, addressParts, type AddressAnswer, type AddressPart } from './field-values.ts';

/**
 * What makes a form answer valid, for every caller: the applicant app, the demo, tests, and any
 * later face. `checkAnswer` reads what a person entered, says what is wrong with it as a problem
 * code (a face turns the code into words in the applicant's language), or gives the value to
 * store (see field-values.ts for how each type is stored).
 *
 * Checks run in this order, and the first problem is the one reported, on the part it is about:
 * control characters, then blank against `required`, then the type's own shape, then the case
 * type's `validation` (lengths on the stored value; min and max on money and numbers; pattern).
 */
export const ANSWER_PROBLEMS = [
  'required',
  'control_characters',
  'wrong_type',
  'incomplete_date',
  'invalid_date',
  'invalid_email',
  'invalid_phone',
  'invalid_money',
  'invalid_number',
  'invalid_postcode',
  'not_an_option',
  'too_short',
  'too_long',
  'too_small',
  'too_large',
  'pattern_mismatch',
] as const;
export type AnswerProblemCode = (typeof ANSWER_PROBLEMS)[number];

export const DATE_PARTS = ['day', 'month', 'year'] as const;
export type DatePart = (typeof DATE_PARTS)[number];
export type DateParts = Partial<Record<DatePart, string>>;

export interface AnswerProblem {
  readonly code: AnswerProblemCode;
  /** The control the problem is on, for fields of several boxes (a date's day, an address's town). */
  readonly part?: DatePart | AddressPart;
}

/** A stored answer: text, or an address's parts ('' for an optional field left blank). */
export type AnswerValue = string | AddressAnswer;
export type AnswerCheck = { readonly ok: true; readonly value: AnswerValue } | { readonly ok: false; readonly problem: AnswerProblem };

/** An address part longer than this is refused: no real line needs it, and it bounds the stored row. */
export const ADDRESS_PART_MAX = 200;

/**
 * Which address parts an address needs (all of them when the field is required, or once any part
 * is given), as GOV.UK's address pattern asks.
 */
export const ADDRESS_PART_NEEDED: Record<AddressPart, boolean> = { line1: true, line2: false, town: true, postcode: true, country: false };
const POSTCODE = /^[\p{L}\p{N}][\p{L}\p{N} -]{1,11}$/u;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9 ()\-.]{7,20}$/;
/**
 * C0 controls but tab, line feed and carriage return, DEL and the C1 controls: nobody types them,
 * PostgreSQL refuses NUL in text and JSON, and the others hide in what a reviewer reads.
 */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

const passed = (value: AnswerValue): AnswerCheck => ({ ok: true, value });
const refused = (code: AnswerProblemCode, part?: DatePart | AddressPart): AnswerCheck => ({ ok: false, problem: part ? { code, part } : { code } });

/**
 * Checks one answer against its field. `entered` is what the person gave: text for most types;
 * for a date its day, month and year (or an ISO `YYYY-MM-DD` text); for an address its parts (a
 * single text is taken as line 1); for a checkbox 'yes' or ''.
 */
export function checkAnswer(field: FormField, entered: unknown): AnswerCheck {
  if (field.type === 'date') return checkDate(field, entered);
  if (field.type === 'address') return checkAddress(field, entered);
  if (entered === undefined || entered === null) entered = '';
  if (typeof entered !== 'string') return refused('wrong_type');
  if (CONTROL.test(entered)) return refused('control_characters');
  const raw = entered.trim();
  if (raw === '') return field.required ? refused('required') : passed('');
  let value = raw;
  switch (field.type) {
    case 'email':
      if (!EMAIL.test(raw) || raw.length > 254) return refused('invalid_email');
      break;
    case 'phone':
      if (!PHONE.test(raw) || raw.replace(/\D/g, '').length < 7) return refused('invalid_phone');
      break;
    case 'money': {
      const amount = parseTypedMoney(raw, field.currency);
      if (amount === null) return refused('invalid_money');
      value = amount;
      break;
    }
    case 'number':
      if (!/^-?\d+(\.\d+)?$/.test(raw.replace(',', '.'))) return refused('invalid_number');
      value = raw.replace(',', '.');
      break;
    case 'select':
    case 'one_of':
      if (!(field.options ?? []).includes(raw)) return refused('not_an_option');
      break;
    case 'checkbox':
      if (raw !== 'yes') return refused('not_an_option');
      break;
    default:
      break;
  }
  const v = field.validation;
  if (v) {
    const numeric = field.type === 'money' || field.type === 'number';
    if (v.min_length !== undefined && value.length < v.min_length) return refused('too_short');
    if (v.max_length !== undefined && value.length > v.max_length) return refused('too_long');
    if (numeric && v.min !== undefined && Number(value) < v.min) return refused('too_small');
    if (numeric && v.max !== undefined && Number(value) > v.max) return refused('too_large');
    if (v.pattern !== undefined && !fullMatch(v.pattern).test(value)) return refused('pattern_mismatch');
  }
  return passed(value);
}

/** The day, month and year given: from parts, or from a stored ISO date. */
function dateParts(entered: unknown): DateParts | undefined {
  if (entered === undefined || entered === null || entered === '') return {};
  if (typeof entered === 'string') {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(entered.trim());
    return m ? { day: m[3], month: m[2], year: m[1] } : undefined;
  }
  if (typeof entered !== 'object' || Array.isArray(entered)) return undefined;
  const parts: DateParts = {};
  for (const part of DATE_PARTS) {
    const given = (entered as Record<string, unknown>)[part];
    if (given === undefined || given === null) continue;
    if (typeof given !== 'string') return undefined;
    parts[part] = given;
  }
  return parts;
}

function checkDate(field: FormField, entered: unknown): AnswerCheck {
  const parts = dateParts(entered);
  if (parts === undefined) return refused(typeof entered === 'string' ? 'invalid_date' : 'wrong_type', 'day');
  const bad = DATE_PARTS.find((part) => CONTROL.test(parts[part] ?? ''));
  if (bad) return refused('control_characters', bad);
  const [d, m, y] = DATE_PARTS.map((part) => (parts[part] ?? '').trim());
  if (d === '' && m === '' && y === '') return field.required ? refused('required', 'day') : passed('');
  if (d === '' || m === '' || y === '') return refused('incomplete_date', d === '' ? 'day' : m === '' ? 'month' : 'year');
  const [day, month, year] = [Number(d), Number(m), Number(y)];
  const date = new Date(Date.UTC(year, month - 1, day));
  const real = /^\d{1,2}$/.test(d!) && /^\d{1,2}$/.test(m!) && /^\d{4}$/.test(y!) && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  if (!real) return refused('invalid_date', 'day');
  return passed(date.toISOString().slice(0, 10));
}

/** An address: the first problem is reported on the part it is about, so a face can point at that box. */
function checkAddress(field: FormField, entered: unknown): AnswerCheck {
  if (entered !== undefined && entered !== null && typeof entered !== 'string' && (typeof entered !== 'object' || Array.isArray(entered))) return refused('wrong_type', 'line1');
  const given = typeof entered === 'object' && entered !== null ? (entered as Record<string, unknown>) : {};
  const bad = ADDRESS_PARTS.find((part) => typeof given[part] === 'string' && CONTROL.test(given[part]));
  if (bad) return refused('control_characters', bad);
  if (typeof entered === 'string' && CONTROL.test(entered)) return refused('control_characters', 'line1');
  // Runs of spaces inside a part are one space, as an envelope prints them.
  const parts: AddressAnswer = {};
  for (const [part, text] of Object.entries(addressParts(entered)) as [AddressPart, string][]) {
    const collapsed = text.replace(/\s+/g, ' ');
    if (collapsed !== '') parts[part] = collapsed;
  }
  if (Object.keys(parts).length === 0 && !field.required) return passed('');
  for (const part of ADDRESS_PARTS) {
    if (ADDRESS_PART_NEEDED[part] && parts[part] === undefined) return refused('required', part);
    if ((parts[part]?.length ?? 0) > ADDRESS_PART_MAX) return refused('too_long', part);
  }
  if (!POSTCODE.test(parts.postcode!)) return refused('invalid_postcode', 'postcode');
  return passed(parts);
}

/** The case type's pattern, anchored at both ends (definitions are checked to compile with 'u'). */
function fullMatch(pattern: string): RegExp {
  try {
    return new RegExp(`^(?:${pattern})$`, 'u');
  } catch {
    return /.*/;
  }
}

export interface FieldProblem extends AnswerProblem {
  readonly field_id: string;
}

/** Answers refused by their rules: a catalog `invalid_request` (a validation_error) that names each field's problem. */
export interface AnswersRefused extends Failure {
  readonly code: 'invalid_request';
  readonly problems: readonly FieldProblem[];
}

/**
 * Checks the answers given for some of `fields` (in the fields' order, so problems come in the
 * order a page shows them): the values to store, or every field's problem.
 */
export function checkAnswers(fields: readonly FormField[], answers: Readonly<Record<string, unknown>>): { ok: true; values: Record<string, AnswerValue> } | AnswersRefused {
  const values: Record<string, AnswerValue> = {};
  const problems: FieldProblem[] = [];
  for (const field of fields) {
    if (!Object.hasOwn(answers, field.field_id)) continue;
    const checked = checkAnswer(field, answers[field.field_id]);
    if (checked.ok) values[field.field_id] = checked.value;
    else problems.push({ field_id: field.field_id, ...checked.problem });
  }
  if (problems.length === 0) return { ok: true, values };
  const listed = problems.map((p) => `${p.field_id} (${p.code})`).join(', ');
  return { ok: false, code: 'invalid_request', message: `Some answers are not valid: ${listed}.`, problems };
}

/** The field type that asks for a fact of each type. Facts are text, so an address is one text box. */
const FIELD_FOR_FACT: Record<FactType, FormField['type']> = {
  string: 'text',
  name: 'text',
  id_number: 'text',
  address: 'textarea',
  date: 'date',
  money: 'money',
  number: 'number',
};

/** A follow-up question as a required form field, typed by its fact, so its answer is checked like any other. */
export function followUpField(definition: CaseTypeDefinition, factId: string): FormField {
  const fact = definition.facts.find((f) => f.fact_id === factId);
  return { field_id: factId, label: fact?.label ?? factId, type: fact ? FIELD_FOR_FACT[fact.type] : 'text', required: true };
}
