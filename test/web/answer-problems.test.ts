import { describe, expect, it } from 'vitest';
import { ANSWER_PROBLEMS } from '../../src/domain/case-types/answer-rules.ts';
import { FIELD_TYPES, type FormField } from '../../src/domain/case-types/definition.ts';
import { ADDRESS_PARTS } from '../../src/domain/case-types/field-values.ts';
import { LOCALES, translator, type Locale } from '../../src/web/i18n/index.ts';
import { problemItem } from '../../src/web/app/answer-problems.ts';
import type { LocalizedCaseType } from '../../src/domain/case-types/translations.ts';

/** A page in `locale` whose case-type labels are in that language (`native`) or left in English. */
const page = (locale: Locale, native = true) => ({ t: translator(locale), texts: { inLocale: () => native } as unknown as LocalizedCaseType });

/**
 * The applicant app turns the domain's problem codes into words (issue 24 §2): every code, on
 * every field type, in every language the app speaks, reads as a sentence (no message key, no
 * unfilled placeholder) and links to the box to fix.
 */
const field = (type: FormField['type']): FormField => ({ field_id: 'f', label: 'Monthly rent', type, required: true, options: ['A'], validation: { min: 1, max: 9, min_length: 2, max_length: 8 } });

describe('problemItem', () => {
  for (const [locale, native] of (Object.keys(LOCALES) as Locale[]).flatMap((l) => [[l, true], [l, false]] as const)) {
    it(`says every problem on every field type in ${locale} (${native ? 'label translated' : 'label not translated'})`, () => {
      const t = page(locale, native);
      for (const type of FIELD_TYPES) {
        const parts = type === 'address' ? ADDRESS_PARTS : type === 'date' ? (['day', 'month', 'year'] as const) : [undefined];
        for (const code of ANSWER_PROBLEMS) {
          for (const part of parts) {
            const item = problemItem(field(type), part ? { field_id: 'f', code, part } : { field_id: 'f', code }, t);
            expect(item.href).toBe(part ? `f-${part}` : 'f');
            expect(item.text, `${type} ${code} ${part ?? ''}`).not.toMatch(/\{\w+\}|^field\.|undefined/);
            // A label left in English never sits inside a sentence of another language.
            if (!native && locale !== 'en') expect(item.text).not.toMatch(/monthly rent/i);
          }
        }
      }
    });
  }

  it('keeps GOV.UK’s specific messages', () => {
    const t = page('en');
    expect(problemItem(field('money'), { field_id: 'f', code: 'invalid_money' }, t).text).toBe('Monthly rent must be an amount of money, like 1250 or 1250.50');
    expect(problemItem(field('money'), { field_id: 'f', code: 'too_small' }, t).text).toBe('Monthly rent must be 1 or more');
    expect(problemItem(field('select'), { field_id: 'f', code: 'required' }, t).text).toBe('Select your monthly rent');
    expect(problemItem(field('select'), { field_id: 'f', code: 'not_an_option' }, t).text).toBe('Select your monthly rent from the list');
    expect(problemItem(field('one_of'), { field_id: 'f', code: 'not_an_option' }, t).text).toBe('Select an answer to “Monthly rent”');
    expect(problemItem(field('address'), { field_id: 'f', code: 'required', part: 'town' }, t)).toEqual({ href: 'f-town', text: 'Enter town or city' });
    expect(problemItem(field('address'), { field_id: 'f', code: 'too_long', part: 'line2' }, t).text).toBe('Address line 2 must be 200 characters or fewer');
    expect(problemItem(field('text'), { field_id: 'f', code: 'control_characters' }, t).text).toBe('Monthly rent must not include hidden control characters');
  });

  it('never splices an English label into a French sentence (issue 26: "Saisissez votre date of birth")', () => {
    expect(problemItem(field('text'), { field_id: 'f', code: 'control_characters' }, page('fr', false)).text).toBe('La réponse ne doit pas contenir de caractères de contrôle invisibles');
    expect(problemItem(field('text'), { field_id: 'f', code: 'required' }, page('fr', false)).text).toBe('Saisissez une réponse');
    const french = { ...field('text'), label: 'Loyer mensuel' };
    expect(problemItem(french, { field_id: 'f', code: 'required' }, page('fr')).text).toBe('Saisissez votre loyer mensuel');
    const german = { ...field('date'), label: 'Geburtsdatum' };
    expect(problemItem(german, { field_id: 'f', code: 'required', part: 'day' }, page('de')).text).toBe('Füllen Sie das Feld „Geburtsdatum“ aus');
  });
});
