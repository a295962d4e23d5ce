import { describe, expect, it } from 'vitest';
import { ANSWER_PROBLEMS, checkAnswer, checkAnswers, followUpField, type AnswerProblem, type AnswerValue } from '../../src/domain/case-types/answer-rules.ts';
import { caseTypeDefinitionSchema, FIELD_TYPES, type FormField } from '../../src/domain/case-types/definition.ts';

/**
 * The form rules, in the domain (issue 24 §2): every field type, every problem code, checked
 * without a face, so any caller of `saveFormAnswers` meets the same rules as the applicant app.
 */
const field = (type: FormField['type'], more: Partial<FormField> = {}): FormField => ({ field_id: 'f', label: 'F', type, required: true, ...more });

type Row = [name: string, field: FormField, entered: unknown, expected: { value: AnswerValue } | AnswerProblem];

const rows: Row[] = [
  // text and textarea
  ['text: kept, trimmed', field('text'), '  Jane Doe ', { value: 'Jane Doe' }],
  ['text: blank and required', field('text'), '   ', { code: 'required' }],
  ['text: blank and optional', field('text', { required: false }), '', { value: '' }],
  ['text: missing and optional', field('text', { required: false }), undefined, { value: '' }],
  ['text: NUL', field('text'), 'Jane\u0000Doe', { code: 'control_characters' }],
  ['text: escape', field('text'), '\u001b[31mred', { code: 'control_characters' }],
  ['text: C1 control', field('text'), 'a\u0085b', { code: 'control_characters' }],
  ['text: NUL alone is not blank', field('text', { required: false }), '\u0000', { code: 'control_characters' }],
  ['text: not text', field('text'), { line1: 'x' }, { code: 'wrong_type' }],
  ['text: a number is not text', field('text'), 42, { code: 'wrong_type' }],
  ['textarea: lines kept', field('textarea'), 'one\r\ntwo\tthree', { value: 'one\r\ntwo\tthree' }],
  ['textarea: NUL', field('textarea'), 'one\u0000', { code: 'control_characters' }],
  // validation
  ['min_length', field('text', { validation: { min_length: 3 } }), 'ab', { code: 'too_short' }],
  ['max_length', field('textarea', { validation: { max_length: 3 } }), 'abcd', { code: 'too_long' }],
  ['pattern: matches whole', field('text', { validation: { pattern: '[A-Z]{2}\\d{6}' } }), 'AB123456', { value: 'AB123456' }],
  ['pattern: anchored', field('text', { validation: { pattern: '[A-Z]{2}\\d{6}' } }), 'xAB123456', { code: 'pattern_mismatch' }],
  // email
  ['email', field('email'), 'jane@example.com', { value: 'jane@example.com' }],
  ['email: no domain', field('email'), 'jane@', { code: 'invalid_email' }],
  ['email: too long', field('email'), `${'a'.repeat(250)}@example.com`, { code: 'invalid_email' }],
  ['email: blank', field('email'), '', { code: 'required' }],
  // phone
  ['phone', field('phone'), '+44 7700 900 982', { value: '+44 7700 900 982' }],
  ['phone: words', field('phone'), 'call me', { code: 'invalid_phone' }],
  ['phone: too few digits', field('phone'), '(12) 3-4', { code: 'invalid_phone' }],
  // money: one parser, the extraction's
  ['money: plain', field('money'), '4200.50', { value: '4200.50' }],
  ['money: thousands', field('money'), '4,200', { value: '4200.00' }],
  ['money: symbol of its currency', field('money', { currency: 'GBP' }), '£1,250', { value: '1250.00' }],
  ['money: its currency code', field('money', { currency: 'USD' }), 'USD 1250', { value: '1250.00' }],
  ['money: a "$" of any dollar', field('money', { currency: 'CAD' }), '$12', { value: '12.00' }],
  ['money: decimal comma', field('money'), '1 250,50', { value: '1250.50' }],
  ['money: another currency', field('money', { currency: 'GBP' }), 'USD 1250', { code: 'invalid_money' }],
  ['money: another symbol', field('money', { currency: 'USD' }), '€1250', { code: 'invalid_money' }],
  ['money: words', field('money'), 'lots', { code: 'invalid_money' }],
  ['money: trailing words', field('money'), '12 apples', { code: 'invalid_money' }],
  ['money: negative', field('money'), '-12', { code: 'invalid_money' }],
  ['money: in brackets', field('money'), '(12)', { code: 'invalid_money' }],
  ['money: three decimals', field('money'), '12.345.6', { code: 'invalid_money' }],
  ['money: min', field('money', { validation: { min: 1 } }), '£0', { code: 'too_small' }],
  ['money: max', field('money', { validation: { max: 100 } }), '100.01', { code: 'too_large' }],
  // number
  ['number', field('number'), '12', { value: '12' }],
  ['number: decimal comma', field('number'), '2,5', { value: '2.5' }],
  ['number: words', field('number'), 'twelve', { code: 'invalid_number' }],
  ['number: min', field('number', { validation: { min: 1 } }), '0', { code: 'too_small' }],
  ['number: max', field('number', { validation: { max: 12 } }), '13', { code: 'too_large' }],
  // choices
  ['select', field('select', { options: ['Morning', 'Evening'] }), 'Evening', { value: 'Evening' }],
  ['select: not offered', field('select', { options: ['Morning', 'Evening'] }), 'Night', { code: 'not_an_option' }],
  ['select: blank', field('select', { options: ['Morning'] }), '', { code: 'required' }],
  ['one_of', field('one_of', { options: ['Renting', 'Own home'] }), 'Renting', { value: 'Renting' }],
  ['one_of: not offered', field('one_of', { options: ['Renting', 'Own home'] }), 'Castle', { code: 'not_an_option' }],
  ['checkbox', field('checkbox'), 'yes', { value: 'yes' }],
  ['checkbox: unticked and required', field('checkbox'), '', { code: 'required' }],
  ['checkbox: unticked and optional', field('checkbox', { required: false }), '', { value: '' }],
  ['checkbox: another value', field('checkbox'), 'on', { code: 'not_an_option' }],
  // date
  ['date: parts', field('date'), { day: '7', month: '3', year: '1990' }, { value: '1990-03-07' }],
  ['date: ISO text', field('date'), '1990-03-07', { value: '1990-03-07' }],
  ['date: blank and required', field('date'), { day: '', month: '', year: '' }, { code: 'required', part: 'day' }],
  ['date: blank and optional', field('date', { required: false }), { day: '', month: '', year: '' }, { value: '' }],
  ['date: no month', field('date'), { day: '7', month: '', year: '1990' }, { code: 'incomplete_date', part: 'month' }],
  ['date: no year', field('date'), { day: '7', month: '3' }, { code: 'incomplete_date', part: 'year' }],
  ['date: not real', field('date'), { day: '31', month: '2', year: '1990' }, { code: 'invalid_date', part: 'day' }],
  ['date: two-digit year', field('date'), { day: '1', month: '2', year: '90' }, { code: 'invalid_date', part: 'day' }],
  ['date: other text', field('date'), '7 March 1990', { code: 'invalid_date', part: 'day' }],
  ['date: NUL in a part', field('date'), { day: '7', month: '3\u0000', year: '1990' }, { code: 'control_characters', part: 'month' }],
  ['date: not parts', field('date'), ['7', '3', '1990'], { code: 'wrong_type', part: 'day' }],
  // address
  ['address', field('address'), { line1: ' 12  High Street ', line2: '', town: 'Leeds', postcode: 'LS1 4AB' }, { value: { line1: '12 High Street', town: 'Leeds', postcode: 'LS1 4AB' } }],
  ['address: blank and optional', field('address', { required: false }), { line1: '', town: '' }, { value: '' }],
  ['address: blank and required', field('address'), {}, { code: 'required', part: 'line1' }],
  ['address: no town', field('address', { required: false }), { line1: '12 High Street', postcode: 'LS1 4AB' }, { code: 'required', part: 'town' }],
  ['address: a part too long', field('address'), { line1: 'x'.repeat(201), town: 'Leeds', postcode: 'LS1 4AB' }, { code: 'too_long', part: 'line1' }],
  ['address: postcode', field('address'), { line1: '12 High Street', town: 'Leeds', postcode: '!!' }, { code: 'invalid_postcode', part: 'postcode' }],
  ['address: NUL in a part', field('address'), { line1: '12 High Street', town: 'Le\u0000eds', postcode: 'LS1 4AB' }, { code: 'control_characters', part: 'town' }],
  ['address: not parts', field('address'), 12, { code: 'wrong_type', part: 'line1' }],
];

describe('checkAnswer', () => {
  it.each(rows)('%s', (_name, f, entered, expected) => {
    const checked = checkAnswer(f, entered);
    expect(checked).toEqual('value' in expected ? { ok: true, value: expected.value } : { ok: false, problem: expected });
  });

  it('is tried on every field type and every problem code', () => {
    expect(new Set(rows.map(([, f]) => f.type))).toEqual(new Set(FIELD_TYPES));
    expect(new Set(rows.flatMap(([, , , e]) => ('code' in e ? [e.code] : [])))).toEqual(new Set(ANSWER_PROBLEMS));
  });
});

describe('checkAnswers', () => {
  const fields = [field('text', { field_id: 'name' }), field('email', { field_id: 'email' }), field('date', { field_id: 'born' })];

  it('checks only the answers given, and gives the values to store', () => {
    expect(checkAnswers(fields, { email: ' jane@example.com ', born: '1990-03-07' })).toEqual({ ok: true, values: { email: 'jane@example.com', born: '1990-03-07' } });
  });

  it('refuses with the catalog validation error and every field’s problem, in the fields’ order', () => {
    expect(checkAnswers(fields, { born: { day: '31', month: '2', year: '1990' }, email: 'jane@', name: 'Jane' })).toEqual({
      ok: false,
      code: 'invalid_request',
      message: 'Some answers are not valid: email (invalid_email), born (invalid_date).',
      problems: [
        { field_id: 'email', code: 'invalid_email' },
        { field_id: 'born', code: 'invalid_date', part: 'day' },
      ],
    });
  });
});

describe('followUpField', () => {
  it('asks for a fact with the field type of its fact type, required', () => {
    const definition = caseTypeDefinitionSchema.parse({
      case_type_id: 'x',
      name: 'X',
      operating_mode: 'system_of_record',
      facts: [
        { fact_id: 'gross_pay', label: 'Gross pay', type: 'money', anchors: ['Gross'] },
        { fact_id: 'home', label: 'Home', type: 'address', anchors: ['Address'] },
      ],
      workflow: { workflow_id: 'w', nodes: [{ node_id: 'n', type: 'review', title: 'Review' }] },
    });
    expect(followUpField(definition, 'gross_pay')).toEqual({ field_id: 'gross_pay', label: 'Gross pay', type: 'money', required: true });
    // Facts are text, so an address fact is asked in one box.
    expect(followUpField(definition, 'home').type).toBe('textarea');
    expect(followUpField(definition, 'unknown')).toMatchObject({ type: 'text', label: 'unknown' });
  });
});
