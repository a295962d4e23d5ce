import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import type { MessageKey } from '../i18n/index.ts';
import { html, sendPage } from '../render.ts';
import { buttonLink } from '../ui/components.ts';
import { localeFor, type AppRouteDeps } from './context.ts';
import { appPage } from './layout.ts';

export type AppErrorKind = 'forbidden' | 'expired' | 'not_found' | 'csrf' | 'invalid' | 'rate_limited' | 'server';

const STATUS: Record<AppErrorKind, number> = { forbidden: 403, expired: 410, not_found: 404, csrf: 403, invalid: 400, rate_limited: 429, server: 500 };

/**
 * The app's error pages: each says what happened and what to do next, in the applicant's
 * language. The expired page links back to the customer's `return_url` when the session has one.
 */
export function sendAppError(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: AppRouteDeps,
  kind: AppErrorKind,
  extra: { returnUrl?: string | null; orgName?: string } = {},
): FastifyReply {
  const { locale, t } = request.applicant ?? localeFor(request, null);
  const title = t(`error.${kind}.title` as MessageKey);
  const orgName = extra.orgName ?? request.applicant?.intake.org_name;
  const page = appPage(deps, {
    locale,
    t,
    title,
    orgName,
    // Once the link was read (expired, rate limited, out-of-date form), a test session still says so.
    testMode: request.applicant?.intake.environment === 'test',
    languages: request.applicant?.languages,
    children: html`<h1>${title}</h1>
      <p>${t(`error.${kind}.body` as MessageKey)}</p>
      ${kind === 'expired' && extra.returnUrl ? html`<p>${buttonLink({ href: extra.returnUrl, text: t('error.expired.return', { org: orgName || new URL(extra.returnUrl).host }) })}</p>` : null}
      ${kind === 'server' ? html`<p class="muted small">${t('error.server.request_id')} <code>${String(request.id)}</code></p>` : null}`,
  });
  if (kind === 'rate_limited') reply.header('retry-after', '60');
  return sendPage(reply, page, STATUS[kind]);
}

/** Errors in page handlers become pages, never JSON; anything unexpected is logged and shown as the generic 500. */
export function appErrorHandler(deps: AppRouteDeps) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError) {
      const kind: AppErrorKind =
        error.status === 403 ? 'forbidden' : error.status === 404 ? 'not_found' : error.status === 429 ? 'rate_limited' : error.status === 400 ? 'invalid' : error.status < 500 ? 'csrf' : 'server';
      if (kind === 'server') request.log.error({ err: error }, 'applicant page failed');
      return sendAppError(request, reply, deps, kind);
    }
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status === 404) return sendAppError(request, reply, deps, 'not_found');
    if (status === 413) return reply.code(413).type('text/plain; charset=utf-8').send('Too large');
    if (status >= 400 && status < 500) return sendAppError(request, reply, deps, 'csrf');
    request.log.error({ err: error }, 'applicant page failed');
    return sendAppError(request, reply, deps, 'server');
  };
}
