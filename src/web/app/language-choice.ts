import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { cookieBase } from '../face.ts';
import { supported } from '../i18n/index.ts';
import type { AppRouteDeps } from './context.ts';
import { LANGUAGE_COOKIE } from './language.ts';

/** `?lang=`: whatever was sent (a repeated or unknown value still leaves the address, unremembered). */
const LanguageQuery = z.object({ lang: z.unknown().optional() });

/** GET …?lang=xx on any session page: remember the choice, then show the same page without the parameter. */
export function registerLanguageChoice(scope: FastifyInstance, deps: AppRouteDeps): void {
  scope.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'GET' || !request.applicant) return;
    const lang = LanguageQuery.safeParse(request.query).data?.lang;
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
