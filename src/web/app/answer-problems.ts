import { ADDRESS_PART_MAX, type AnswerProblemCode, type FieldProblem } from '../../domain/case-types/answer-rules.ts';
import type { FormField } from '../../domain/case-types/definition.ts';
import type { MessageKey, Translate } from '../i18n/index.ts';
import type { ErrorItem } from '../ui/components.ts';
import { labelParams } from './context.ts';

/**
 * The words for a refused answer, in the applicant's language, with GOV.UK's specific messages
 * ("Enter town or city", "Select the box to confirm: …"). The domain says what is wrong
 * (`checkAnswer`); this only says it. The error links to the box to fix: the field's own control,
 * or the part of a date or an address the problem is on.
 */
export function problemItem(field: FormField, problem: FieldProblem, t: Translate): ErrorItem {
  const href = problem.part ? `${field.field_id}-${problem.part}` : field.field_id;
  return { href, text: problemText(field, problem, t) };
}

function problemText(field: FormField, problem: FieldProblem, t: Translate): string {
  const params = labelParams(field.label);
  const v = field.validation;
  const part = problem.part;
  if (field.type === 'address' && part !== undefined && part !== 'day' && part !== 'month' && part !== 'year') {
    if (problem.code === 'required') return t(`field.address_${part}_required`);
    if (problem.code === 'too_long') return t('field.address_too_long', { part: t(`field.address_${part}`), max: ADDRESS_PART_MAX });
    if (problem.code === 'invalid_postcode') return t('field.address_postcode_invalid');
  }
  const byCode: Record<AnswerProblemCode, () => string> = {
    required: () => t(REQUIRED[field.type] ?? 'field.required', params),
    control_characters: () => t('field.control_characters', params),
    wrong_type: () => t('field.pattern', params),
    incomplete_date: () => t('field.date_incomplete', params),
    invalid_date: () => t('field.date_invalid', params),
    invalid_email: () => t('field.email_invalid'),
    invalid_phone: () => t('field.phone_invalid'),
    invalid_money: () => t('field.money_invalid', params),
    invalid_number: () => t('field.number_invalid', params),
    invalid_postcode: () => t('field.address_postcode_invalid'),
    // A choice that was never offered reads like no choice at all, but for a list.
    not_an_option: () => t(field.type === 'select' ? 'field.select_invalid' : (REQUIRED[field.type] ?? 'field.pattern'), params),
    too_short: () => t('field.too_short', { ...params, min: v?.min_length ?? 0 }),
    too_long: () => t('field.too_long', { ...params, max: v?.max_length ?? 0 }),
    too_small: () => t('field.below_min', { ...params, min: v?.min ?? 0 }),
    too_large: () => t('field.above_max', { ...params, max: v?.max ?? 0 }),
    pattern_mismatch: () => t('field.pattern', params),
  };
  return byCode[problem.code]();
}

/** A blank required answer asks by the control's kind: choose from a list, pick a radio, tick a box. */
const REQUIRED: Partial<Record<FormField['type'], MessageKey>> = {
  select: 'field.required_select',
  one_of: 'field.required_one_of',
  checkbox: 'field.required_checkbox',
};
