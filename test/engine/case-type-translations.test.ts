import { describe, expect, it } from 'vitest';
import { parseCaseTypeDefinition, type CaseTypeDefinition } from '../../src/domain/case-types/definition.ts';
import { localizeCaseType, missingTranslations, translatableTexts } from '../../src/domain/case-types/translations.ts';
import { addressProof, incomeVerification, tenancyApplication } from '../support/fixtures.ts';

/** Case-type translations (issue 26 §2): keys by id, missing ones warned about per locale, unknown ones refused. */
const parse = (input: unknown): CaseTypeDefinition => {
  const parsed = parseCaseTypeDefinition(input);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.value;
};

describe('case type translations', () => {
  it('the three examples are translated into every applicant locale: no warnings', () => {
    for (const example of [incomeVerification, addressProof, tenancyApplication]) {
      const parsed = parseCaseTypeDefinition(example);
      expect(parsed.ok && parsed.warnings).toEqual([]);
    }
  });

  it('lists every applicant-facing text by key: titles, labels, options, document labels, facts, whys, the finish text', () => {
    const keys = [...translatableTexts(parse(tenancyApplication)).keys()];
    expect(keys).toEqual(
      expect.arrayContaining([
        'nodes.about_you.title',
        'fields.housing.label',
        'fields.housing.options.With family or friends',
        'documents.utility_bill.label',
        'facts.statement_date.label',
        'rules.recent_bill.why',
        'finish.what_happens_next',
      ]),
    );
    // Gates and reviews are the operator's: their titles are not the applicant's to read.
    expect(keys).not.toContain('nodes.checks.title');
  });

  it('warns, per locale, about texts without a translation; the case type still parses', () => {
    const def = structuredClone(incomeVerification) as any;
    delete def.translations.de['fields.email.label'];
    delete def.translations.es;
    const parsed = parseCaseTypeDefinition(def);
    if (!parsed.ok) throw new Error('expected a case type');
    expect(parsed.warnings.map((w) => w.path)).toEqual(['$.translations.de', '$.translations.es']);
    expect(parsed.warnings[0]!.message).toBe('1 of the applicant\'s texts has no German translation: fields.email.label');
    expect(missingTranslations(parsed.value).find((m) => m.locale === 'es')!.missing).toHaveLength(translatableTexts(parsed.value).size);
  });

  it('refuses a key that names no text, and English translations (the definition is English)', () => {
    const def = structuredClone(incomeVerification) as any;
    def.translations.fr['fields.ful_name.label'] = 'Nom';
    def.translations.en = { 'fields.full_name.label': 'Name' };
    const parsed = parseCaseTypeDefinition(def);
    if (parsed.ok) throw new Error('expected problems');
    expect(parsed.problems).toEqual(
      expect.arrayContaining([
        { path: '$.translations.fr.fields.ful_name.label', message: 'no text has the key "fields.ful_name.label"' },
        { path: '$.translations.en', message: 'the case type is written in English; translations are for other locales' },
      ]),
    );
  });

  it('localizes a definition, keeps option values, and knows which texts fell back to English', () => {
    const def = structuredClone(tenancyApplication) as any;
    delete def.translations.de['fields.phone.label'];
    const parsed = parse(def);
    const de = localizeCaseType(parsed, 'de');
    const form = de.definition.workflow.nodes[0] as Extract<CaseTypeDefinition['workflow']['nodes'][number], { type: 'form' }>;
    expect(form.title).toBe('Angaben zu Ihnen und Ihrer Wohnung');
    const housing = form.fields.find((f) => f.field_id === 'housing')!;
    expect(housing.options).toEqual(['Renting', 'Own home', 'With family or friends', 'Other']);
    expect(de.optionText(housing, 'Own home')).toBe('Im eigenen Zuhause');
    const phone = form.fields.find((f) => f.field_id === 'phone')!;
    expect(phone.label).toBe('Phone number');
    expect(de.inLocale(phone.label)).toBe(false);
    expect(de.inLocale(housing.label)).toBe(true);
    expect(de.definition.finish?.what_happens_next).toMatch(/^Die Hausverwaltung/);
    // English pages read the definition as written; the result is kept per definition and locale.
    const en = localizeCaseType(parsed, 'en');
    expect(en.definition.workflow.nodes[0]).toEqual(parsed.workflow.nodes[0]);
    expect(en.inLocale('Phone number')).toBe(true);
    expect(localizeCaseType(parsed, 'de')).toBe(de);
  });
});
