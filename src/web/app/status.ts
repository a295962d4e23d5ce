import type { FastifyInstance } from 'fastify';
import type { ApplicantIntake } from '../../domain/intake/applicant-intake.ts';
import { html, sendPage } from '../render.ts';
import { buttonLink, notification } from '../ui/components.ts';
import { applicantOf, paths, resumePath, type AppRouteDeps } from './context.ts';
import { appPage } from './layout.ts';

export type Stage = 'open' | 'processing' | 'follow_up' | 'done';

/** Where a submitted intake stands, as the applicant sees it. */
export function stageOf(intake: ApplicantIntake): Stage {
  if (intake.status !== 'submitted') return 'open';
  if (intake.follow_ups.length > 0) return 'follow_up';
  return intake.runtime_status === 'ready_for_review' || intake.runtime_status === 'complete' ? 'done' : 'processing';
}

/** The customer's return_url with session_id, case_id and status added (Stripe Checkout's pattern). */
export function returnLink(intake: ApplicantIntake): string | undefined {
  if (!intake.return_url) return undefined;
  const url = new URL(intake.return_url);
  url.searchParams.set('session_id', intake.session_id);
  url.searchParams.set('case_id', intake.case_id);
  url.searchParams.set('status', intake.runtime_status);
  return url.toString();
}

/**
 * GET …/status after submitting: "We're reading your documents" while processing (the script
 * polls …/status.json and reloads when the stage changes; without it, "Check again" reloads),
 * then "All done" with the return_url button, or the follow-up questions.
 */
export function registerStatus(scope: FastifyInstance, deps: AppRouteDeps): void {
  scope.get('/s/:sessionId/status', { config: { auth: 'applicant' } }, async (request, reply) => {
    const { intake, t, locale } = applicantOf(request);
    const p = paths(deps.prefix, intake.session_id);
    const stage = stageOf(intake);
    if (stage === 'open') return reply.redirect(resumePath(deps.prefix, intake), 303);
    if (stage === 'follow_up') return reply.redirect(p.followUps, 303);
    const already = (request.query as { already?: string }).already === '1';
    const back = returnLink(intake);
    const title = stage === 'done' ? t('status.done.title') : t('status.processing.title');
    return sendPage(
      reply,
      appPage(deps, {
        locale,
        t,
        title,
        orgName: intake.org_name,
        testMode: intake.environment === 'test',
        children: html`
          ${already ? notification({ tone: 'info', children: html`<p>${t('status.already_submitted')}</p>` }) : null}
          <div role="status" aria-live="polite" data-status-poll=${p.statusJson} data-stage=${stage}>
            ${stage === 'done'
              ? html`<div class="panel">
                  <h1 class="panel__title">${title}</h1>
                  <p class="panel__body">${t('status.reference')}<br /><strong class="mono">${intake.case_id}</strong></p>
                </div>
                <p>${t('status.done.body', { org: intake.org_name })}</p>
                ${back ? html`<p>${buttonLink({ href: back, text: t('status.return', { org: intake.org_name }) })}</p>` : null}`
              : html`<div class="panel panel--info">
                  <h1 class="panel__title">${title}</h1>
                  <span class="spinner" aria-hidden="true"></span>
                </div>
                <p>${t('status.processing.body')}</p>
                <p><a class="button button--secondary" href=${p.status} role="button" draggable="false">${t('status.check_again')}</a></p>`}
          </div>`,
      }),
    );
  });

  scope.get('/s/:sessionId/status.json', { config: { auth: 'applicant' } }, async (request, reply) => {
    const { intake } = applicantOf(request);
    return reply.header('cache-control', 'no-store').send({ stage: stageOf(intake) });
  });
}
