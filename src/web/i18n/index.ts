import type { ApplicantLocale } from '../../domain/case-types/translations.ts';
import { de } from './de.ts';
import { en, type MessageKey, type Messages } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';

export type { MessageKey, Messages };

/** The app's catalogues: exactly the locales the case-type validator checks translations for. */
export const LOCALES = { en, fr, de, es } as const satisfies Record<ApplicantLocale, Messages>;
export type Locale = keyof typeof LOCALES;
export const DEFAULT_LOCALE: Locale = 'en';

/** Each language by its own name, as a language switcher shows it (a proper name in every locale). */
export const LANGUAGE_NAMES: Record<Locale, string> = { en: 'English', fr: 'Français', de: 'Deutsch', es: 'Español' };

/** Keys whose message has a label-free sibling (`….unnamed`), used when the label is not in the page's language. */
export type LabelledKey = { [K in MessageKey]: `${K}.unnamed` extends MessageKey ? K : never }[MessageKey];

export function supported(tag: string | null | undefined): Locale | undefined {
  const language = tag?.trim().toLowerCase().split(/[-_]/)[0];
  return language && language in LOCALES ? (language as Locale) : undefined;
}

/**
 * The session's locale when it is one we speak (the integrator knows its customer), else the one
 * the applicant chose with the language links, else the browser's most preferred one we speak
 * (Accept-Language with q-values), else English.
 */
export function negotiateLocale(sessionLocale: string | null | undefined, acceptLanguage: string | undefined, chosen?: string | undefined): Locale {
  const fromSession = supported(sessionLocale);
  if (fromSession) return fromSession;
  const fromChoice = supported(chosen);
  if (fromChoice) return fromChoice;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag: tag ?? '', q: q === undefined ? 1 : Number(q), i };
    })
    .filter((r) => r.tag !== '' && r.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranked) {
    const locale = supported(r.tag);
    if (locale) return locale;
  }
  return DEFAULT_LOCALE;
}

export type Translate = (key: MessageKey, params?: Readonly<Record<string, string | number>>) => string;

export function translator(locale: Locale): Translate {
  const messages = LOCALES[locale];
  return (key, params) => {
    const text = messages[key];
    return params ? text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole)) : text;
  };
}
