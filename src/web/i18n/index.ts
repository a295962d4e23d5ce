import { en, type MessageKey, type Messages } from './en.ts';
import { fr } from './fr.ts';

export type { MessageKey, Messages };

export const LOCALES = { en, fr } as const satisfies Record<string, Messages>;
export type Locale = keyof typeof LOCALES;
export const DEFAULT_LOCALE: Locale = 'en';

function supported(tag: string | null | undefined): Locale | undefined {
  const language = tag?.trim().toLowerCase().split(/[-_]/)[0];
  return language && language in LOCALES ? (language as Locale) : undefined;
}

/**
 * The session's locale when it is one we speak, else the browser's most preferred one we speak
 * (Accept-Language with q-values), else English.
 */
export function negotiateLocale(sessionLocale: string | null | undefined, acceptLanguage: string | undefined): Locale {
  const fromSession = supported(sessionLocale);
  if (fromSession) return fromSession;
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
