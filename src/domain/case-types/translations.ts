import type { CaseTypeDefinition, DefinitionProblem, FormField, WorkflowNode } from './definition-shape.ts';

/**
 * A case type's applicant-facing texts in other languages (issue 26). The definition is written
 * in English; `translations` holds, per locale, one text per key:
 *
 *   nodes.<node_id>.title              a form or upload step's title
 *   fields.<field_id>.label | .hint    a form field's label and hint
 *   fields.<field_id>.options.<option> how an option reads (the stored answer stays the option)
 *   documents.<document_kind>.label    a document kind's label
 *   facts.<fact_id>.label              a fact's label (follow-up questions name it)
 *   rules.<rule_id>.why                a gate rule's reason
 *   finish.what_happens_next           the finish page's "what happens next"
 *
 * Keys name ids, not positions, so reordering steps keeps every translation; the set of keys a
 * definition needs is computed from it, which is what makes "is this locale complete?" a plain
 * set difference. A missing text is a warning (the page falls back to English for that text and
 * phrases its messages without it); a key that names nothing is an error (a typo would otherwise
 * hide a translation for ever).
 */
export const APPLICANT_LOCALES = ['en', 'fr', 'de', 'es'] as const;
export type ApplicantLocale = (typeof APPLICANT_LOCALES)[number];
/** The language the definition itself is written in. */
export const SOURCE_LOCALE: ApplicantLocale = 'en';

/**
 * The locales a case type serves: the one it is written in, then those it has translations for,
 * alphabetically (a stored definition's keys come back in the database's order, not the author's).
 */
export function caseTypeLocales(def: { translations?: Readonly<Record<string, unknown>> | undefined }): string[] {
  return [SOURCE_LOCALE, ...Object.keys(def.translations ?? {}).filter((locale) => locale !== SOURCE_LOCALE).sort()];
}

const LANGUAGE_NAMES: Record<ApplicantLocale, string> = { en: 'English', fr: 'French', de: 'German', es: 'Spanish' };

type Definition = Pick<CaseTypeDefinition, 'facts' | 'workflow'> & { finish?: { what_happens_next: string } | undefined };

/** Every translatable text of a definition: key → its English text, in the order a reader meets them. */
export function translatableTexts(def: Definition): Map<string, string> {
  const texts = new Map<string, string>();
  for (const node of def.workflow.nodes) {
    if (node.type !== 'form' && node.type !== 'upload') continue;
    texts.set(`nodes.${node.node_id}.title`, node.title);
    if (node.type === 'form') {
      for (const field of node.fields) {
        texts.set(`fields.${field.field_id}.label`, field.label);
        if (field.hint !== undefined) texts.set(`fields.${field.field_id}.hint`, field.hint);
        for (const option of field.options ?? []) texts.set(`fields.${field.field_id}.options.${option}`, option);
      }
    } else {
      for (const kind of node.documents) texts.set(`documents.${kind.document_kind}.label`, kind.label);
    }
  }
  for (const fact of def.facts) texts.set(`facts.${fact.fact_id}.label`, fact.label);
  for (const node of def.workflow.nodes) {
    if (node.type === 'gate') for (const rule of node.rules) texts.set(`rules.${rule.rule_id}.why`, rule.why);
  }
  if (def.finish) texts.set('finish.what_happens_next', def.finish.what_happens_next);
  return texts;
}

/** Keys of `translations` that name no text of the definition: errors, with where they are. */
export function unknownTranslationKeys(def: Definition, translations: Readonly<Record<string, Readonly<Record<string, string>>>>): { at: string[]; message: string }[] {
  const known = translatableTexts(def);
  const problems: { at: string[]; message: string }[] = [];
  for (const [locale, texts] of Object.entries(translations)) {
    if (locale === SOURCE_LOCALE) {
      problems.push({ at: ['translations', locale], message: 'the case type is written in English; translations are for other locales' });
      continue;
    }
    for (const key of Object.keys(texts)) {
      if (!known.has(key)) problems.push({ at: ['translations', locale, key], message: `no text has the key "${key}"` });
    }
  }
  return problems;
}

export interface MissingTranslations {
  locale: ApplicantLocale;
  language: string;
  /** Keys with no text in this locale, each with the English text it should translate. */
  missing: { key: string; english: string }[];
}

/** Per applicant locale other than English, the texts not yet translated (warnings: the case type still works). */
export function missingTranslations(def: Definition & { translations?: Readonly<Record<string, Readonly<Record<string, string>>>> | undefined }): MissingTranslations[] {
  const texts = translatableTexts(def);
  return APPLICANT_LOCALES.filter((l) => l !== SOURCE_LOCALE).flatMap((locale) => {
    const given = def.translations?.[locale] ?? {};
    const missing = [...texts].filter(([key]) => !given[key]).map(([key, english]) => ({ key, english }));
    return missing.length === 0 ? [] : [{ locale, language: LANGUAGE_NAMES[locale], missing }];
  });
}

/** The warnings `parseCaseTypeDefinition` reports: one per locale, naming how many texts are missing and the first few keys. */
export function translationWarnings(def: Parameters<typeof missingTranslations>[0]): DefinitionProblem[] {
  return missingTranslations(def).map((m) => {
    const shown = m.missing.slice(0, 5).map((x) => x.key).join(', ');
    const more = m.missing.length > 5 ? ` and ${m.missing.length - 5} more` : '';
    return { path: `$.translations.${m.locale}`, message: `${m.missing.length} of the applicant's texts ${m.missing.length === 1 ? 'has' : 'have'} no ${m.language} translation: ${shown}${more}` };
  });
}

/** A definition with its texts in one locale, and what a page needs beside it. */
export interface LocalizedCaseType {
  locale: string;
  /** The same definition, every translatable text in the locale, English where a translation is missing. */
  definition: CaseTypeDefinition;
  /** How an option of a choice field reads; the option itself stays the stored answer. */
  optionText(field: Pick<FormField, 'field_id'>, option: string): string;
  /**
   * False for an English text shown in another locale because its translation is missing: a
   * message must then be phrased without it, never spliced into a sentence of another language.
   */
  inLocale(text: string): boolean;
}

const localized = new WeakMap<CaseTypeDefinition, Map<string, LocalizedCaseType>>();

/**
 * The definition in a locale. Pinned definitions come from a process cache and never change, so
 * the result is kept per definition object and locale: a page pays for it once, not per request.
 */
export function localizeCaseType(def: CaseTypeDefinition, locale: string): LocalizedCaseType {
  let byLocale = localized.get(def);
  if (!byLocale) localized.set(def, (byLocale = new Map()));
  let hit = byLocale.get(locale);
  if (!hit) byLocale.set(locale, (hit = build(def, locale)));
  return hit;
}

function build(def: CaseTypeDefinition, locale: string): LocalizedCaseType {
  const given = locale === SOURCE_LOCALE ? undefined : def.translations?.[locale];
  const fallbacks = new Set<string>();
  const text = (key: string, english: string): string => {
    if (!given) {
      if (locale !== SOURCE_LOCALE) fallbacks.add(english);
      return english;
    }
    const t = given[key];
    if (t) return t;
    fallbacks.add(english);
    return english;
  };
  const node = (n: WorkflowNode): WorkflowNode => {
    switch (n.type) {
      case 'form':
        return {
          ...n,
          title: text(`nodes.${n.node_id}.title`, n.title),
          fields: n.fields.map((f) => ({
            ...f,
            label: text(`fields.${f.field_id}.label`, f.label),
            ...(f.hint !== undefined ? { hint: text(`fields.${f.field_id}.hint`, f.hint) } : {}),
          })),
        };
      case 'upload':
        return { ...n, title: text(`nodes.${n.node_id}.title`, n.title), documents: n.documents.map((d) => ({ ...d, label: text(`documents.${d.document_kind}.label`, d.label) })) };
      case 'gate':
        return { ...n, rules: n.rules.map((r) => ({ ...r, why: text(`rules.${r.rule_id}.why`, r.why) })) };
      default:
        return n;
    }
  };
  const definition: CaseTypeDefinition = {
    ...def,
    facts: def.facts.map((f) => ({ ...f, label: text(`facts.${f.fact_id}.label`, f.label) })),
    workflow: { ...def.workflow, nodes: def.workflow.nodes.map(node) },
    ...(def.finish ? { finish: { ...def.finish, what_happens_next: text('finish.what_happens_next', def.finish.what_happens_next) } } : {}),
  };
  const options = new Map<string, string>();
  for (const n of def.workflow.nodes) {
    if (n.type !== 'form') continue;
    for (const f of n.fields) for (const o of f.options ?? []) options.set(`${f.field_id}\u0000${o}`, text(`fields.${f.field_id}.options.${o}`, o));
  }
  return {
    locale,
    definition,
    optionText: (field, option) => options.get(`${field.field_id}\u0000${option}`) ?? option,
    inLocale: (t) => !fallbacks.has(t),
  };
}
