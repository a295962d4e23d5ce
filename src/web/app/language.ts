import type { FastifyRequest } from 'fastify';
import { LANGUAGE_NAMES, LOCALES, supported, type Locale } from '../i18n/index.ts';

/**
 * The applicant's own choice of language (issue 26). Order: the session's `locale` (the
 * integrator set it), then this choice, then Accept-Language. A choice is a link in the header,
 * `?lang=de` on the page being read: the answer is a cookie scoped to the session's path and a
 * redirect to the same page, so the step, the saved answers and the files all stay.
 */
export const LANGUAGE_COOKIE = 'dossier_lang';

/** One entry of the header's language links. */
export interface LanguageLink {
  locale: Locale;
  name: string;
  href: string;
  current: boolean;
}

/**
 * The page a GET of this address shows: a page re-shown after a post (an error) offers the links
 * of the page it stands for, since the post's own address has no GET.
 */
function pageAddress(path: string): string {
  return path.replace(/(\/upload\/[^/]+)\/(files|remove)$/, '$1').replace(/\/submit$/, '/check');
}

/**
 * The links, or none when the session fixes the locale: a link that cannot change the language
 * would only mislead.
 */
export function languageLinks(request: FastifyRequest, sessionLocale: string | null, current: Locale): LanguageLink[] | undefined {
  if (supported(sessionLocale)) return undefined;
  const url = new URL(request.url, 'http://x');
  url.searchParams.delete('lang');
  const path = pageAddress(url.pathname);
  return (Object.keys(LOCALES) as Locale[]).map((locale) => {
    const query = new URLSearchParams(request.method === 'GET' ? url.searchParams : undefined);
    query.set('lang', locale);
    return { locale, name: LANGUAGE_NAMES[locale], href: `${path}?${query.toString()}`, current: locale === current };
  });
}

/** The choice from the cookie, when it names a locale we speak. */
export function chosenLanguage(request: FastifyRequest): string | undefined {
  return request.cookies[LANGUAGE_COOKIE];
}
