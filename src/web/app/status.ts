import { z } from 'zod';
import { applicantReference } from '../../domain/cases/applicant-reference.ts';
import type { ApplicantIntake } from '../../domain/intake/applicant-intake.ts';
import { html, sendPage } from '../render.ts';
import { buttonLink, notification } from '../ui/components.ts';
import { applicantOf, paths, resumePath, type AppRouteDeps, type ApplicantRequest } from './context.ts';
import { appPage } from './layout.ts';
import type { Translate } from '../i18n/index.ts';
import { queryText } from '../page-route.ts';
import { appRoute, sessionParams } from './route.ts';

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
 * What happens next, in the case type's words when it has them in the page's language, else the
 * default for its operating mode: with Dossier as the system of action the organisation reviews
 * and decides; as a system of record it only hears back when something is missing.
 */
export function whatHappensNext(a: Pick<ApplicantRequest, 'intake' | 't' | 'texts'>): string {
  const own = a.intake.definition.finish?.what_happens_next;
  if (own && a.texts.inLocale(own)) return own;
  return a.t(`status.next.${a.intake.definition.operating_mode}`, { org: a.intake.org_name });
}

/** Seconds before the finish page returns to `return_url` by itself; "Stay on this page" stops it. */
const AUTO_RETURN_SECONDS = 20;

/**
 * The return Stripe Checkout makes once payment is done, made stoppable (WCAG 2.2.1): hidden
 * until the status script, having watched reading finish, starts a countdown with a "Stay on this
 * page" button. The sentence is said once (visually hidden, inside the live region); the changing
 * number beside it is hidden from screen readers so the region does not speak every second.
 */
function autoReturn(back: string, org: string, t: Translate, startNow: boolean) {
  const [before = '', after = ''] = t('status.auto_return', { org, seconds: '\u0000' }).split('\u0000');
  return html`<p class="auto-return" data-auto-return=${back} data-seconds=${String(AUTO_RETURN_SECONDS)} data-auto-start=${startNow ? '' : undefined} hidden>
    <span class="visually-hidden">${t('status.auto_return', { org, seconds: String(AUTO_RETURN_SECONDS) })}</span>
    <span aria-hidden="true">${before}<span data-auto-return-count>${String(AUTO_RETURN_SECONDS)}</span>${after}</span>
    <button type="button" class="button button--secondary" data-auto-return-stay>${t('status.stay')}</button>
  </p>`;
}

/** `?already=1` (a second submit) and `?sent=1` (just sent) from the posts that lead here. */
const statusQuery = z.object({ already: queryText, sent: queryText });

/**
 * GET …/status after submitting: "We're reading your documents" while processing (the script
 * polls …/status.json and swaps the content when the stage changes; without it, "Check again"
 * reloads), then the finish page, or the follow-up questions. The finish page says the answers
 * were sent, never "All done": the case may wait for a reviewer. It gives the applicant's
 * reference, what happens next, and, with a return_url, a "Return to …" button shown as soon as
 * reading is done, with a countdown back there that "Stay on this page" stops (WCAG 2.2.1).
 */
export const statusPage = appRoute({
  method: 'GET',
  url: '/s/:sessionId/status',
  auth: 'applicant',
  params: sessionParams,
  query: statusQuery,
  handler: async ({ request, reply, deps, query }) => {
    const a = applicantOf(request);
    const { intake, t, locale } = a;
    const p = paths(deps.prefix, intake.session_id);
    const stage = stageOf(intake);
    if (stage === 'open') return reply.redirect(resumePath(deps.prefix, intake), 303);
    if (stage === 'follow_up') return reply.redirect(p.followUps, 303);
    const already = query.already === '1';
    // Just sent (from the submit or the follow-up answers): the return countdown may start on load.
    const justSent = query.sent === '1';
    const back = returnLink(intake);
    const title = stage === 'done' ? t('status.sent.title') : t('status.processing.title');
    return sendPage(
      reply,
      appPage(deps, {
        locale,
        t,
        title,
        orgName: intake.org_name,
        testMode: intake.environment === 'test',
        languages: a.languages,
        children: html`
          ${already ? notification({ tone: 'info', children: html`<p>${t('status.already_submitted')}</p>` }) : null}
          <div role="status" aria-live="polite" data-status-poll=${p.statusJson} data-stage=${stage}>
            ${stage === 'done'
              ? html`<div class="panel">
                  <h1 class="panel__title">${title}</h1>
                  <p class="panel__body">${t('status.reference')}<br /><strong class="mono">${applicantReference(intake)}</strong></p>
                </div>
                <p>${t('status.sent.body', { org: intake.org_name })}</p>
                <h2>${t('status.next_heading')}</h2>
                <p class="next-steps">${whatHappensNext(a)}</p>
                ${back ? html`<p>${buttonLink({ href: back, text: t('status.return', { org: intake.org_name }) })}</p>${autoReturn(back, intake.org_name, t, justSent)}` : null}`
              : html`<div class="panel panel--info">
                  <h1 class="panel__title">${title}</h1>
                  <span class="spinner" aria-hidden="true"></span>
                </div>
                <p>${t('status.processing.body')}</p>
                <p><a class="button button--secondary" href=${p.status} role="button" draggable="false">${t('status.check_again')}</a></p>`}
          </div>`,
      }),
    );
  },
});
