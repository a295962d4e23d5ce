import type { FastifyInstance, FastifyRequest } from 'fastify';
import { cookieBase } from '../face.ts';
import { LANGUAGE_NAMES, LOCALES, supported, type Locale } from '../i18n/index.ts';
import type { AppRouteDeps } from './context.ts';

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

/** GET …?lang=xx on any session page: remember the choice, then show the same page without the parameter. */
export function registerLanguageChoice(scope: FastifyInstance, deps: AppRouteDeps): void {
  scope.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'GET' || !request.applicant) return;
    const lang = (request.query as { lang?: unknown } | undefined)?.lang;
    if (lang === undefined) return;
    const locale = typeof lang === 'string' ? supported(lang) : undefined;
    if (locale && locale === lang) {
      const now = deps.ctx.clock.now().getTime();
      reply.setCookie(LANGUAGE_COOKIE, locale, {
        ...cookieBase(deps.ctx.config.appUrl ?? deps.ctx.config.baseUrl),
        sameSite: 'lax',
        path: `${deps.prefix}/s/${request.applicant.intake.session_id}`,
        expires: new Date(Math.max(request.applicant.intake.expires_at.getTime(), now) + 7 * 86_400_000),
      });
    }
    const url = new URL(request.url, 'http://x');
    url.searchParams.delete('lang');
    return reply.redirect(`${url.pathname}${url.search}`, 303);
  });
}
