import { ADDRESS_PART_MAX, type AnswerProblemCode, type FieldProblem } from '../../domain/case-types/answer-rules.ts';
import type { FormField } from '../../domain/case-types/definition.ts';
import type { LabelledKey } from '../i18n/index.ts';
import type { ErrorItem } from '../ui/components.ts';
import { labelled, type ApplicantRequest } from './context.ts';

/**
 * The words for a refused answer, in the applicant's language, with GOV.UK's specific messages
 * ("Enter town or city", "Select the box to confirm: …"). The domain says what is wrong
 * (`checkAnswer`); this only says it. The error links to the box to fix: the field's own control,
 * or the part of a date or an address the problem is on.
 */
export function problemItem(field: FormField, problem: FieldProblem, a: Pick<ApplicantRequest, 't' | 'texts'>): ErrorItem {
  const href = problem.part ? `${field.field_id}-${problem.part}` : field.field_id;
  return { href, text: problemText(field, problem, a) };
}

/** `field` is in the page's language already (the request's localized definition). */
function problemText(field: FormField, problem: FieldProblem, a: Pick<ApplicantRequest, 't' | 'texts'>): string {
  const { t } = a;
  const say = (key: LabelledKey, params: Readonly<Record<string, string | number>> = {}) => labelled(a, key, field.label, params);
  const v = field.validation;
  const part = problem.part;
  if (field.type === 'address' && part !== undefined && part !== 'day' && part !== 'month' && part !== 'year') {
    if (problem.code === 'required') return t(`field.address_${part}_required`);
    if (problem.code === 'too_long') return t('field.address_too_long', { part: t(`field.address_${part}`), max: ADDRESS_PART_MAX });
    if (problem.code === 'invalid_postcode') return t('field.address_postcode_invalid');
  }
  const byCode: Record<AnswerProblemCode, () => string> = {
    required: () => say(REQUIRED[field.type] ?? 'field.required'),
    control_characters: () => say('field.control_characters'),
    wrong_type: () => say('field.pattern'),
    incomplete_date: () => say('field.date_incomplete'),
    invalid_date: () => say('field.date_invalid'),
    invalid_email: () => t('field.email_invalid'),
    invalid_phone: () => t('field.phone_invalid'),
    invalid_money: () => say('field.money_invalid'),
    invalid_number: () => say('field.number_invalid'),
    invalid_postcode: () => t('field.address_postcode_invalid'),
    // A choice that was never offered reads like no choice at all, but for a list.
    not_an_option: () => say(field.type === 'select' ? 'field.select_invalid' : (REQUIRED[field.type] ?? 'field.pattern')),
    too_short: () => say('field.too_short', { min: v?.min_length ?? 0 }),
    too_long: () => say('field.too_long', { max: v?.max_length ?? 0 }),
    too_small: () => say('field.below_min', { min: v?.min ?? 0 }),
    too_large: () => say('field.above_max', { max: v?.max ?? 0 }),
    pattern_mismatch: () => say('field.pattern'),
  };
  return byCode[problem.code]();
}

/** A blank required answer asks by the control's kind: choose from a list, pick a radio, tick a box. */
const REQUIRED: Partial<Record<FormField['type'], LabelledKey>> = {
  select: 'field.required_select',
  one_of: 'field.required_one_of',
  checkbox: 'field.required_checkbox',
};
