import { z } from 'zod';
import { followUpField } from '../../domain/case-types/answer-rules.ts';
import { answerFollowUps } from '../../domain/intake/follow-ups.ts';
import { html, sendPage } from '../render.ts';
import { button, type ErrorItem } from '../ui/components.ts';
import { applicantOf, labelled, paths, resumePath, type AppRouteDeps, type ApplicantRequest } from './context.ts';
import { sendAppError } from './errors.ts';
import { problemItem } from './answer-problems.ts';
import { answerFromEntered, enteredFromBody, fieldControl, type Entered } from './form-fields.ts';
import { appPage, csrfInput } from './layout.ts';
import { appRoute, sessionParams } from './route.ts';

function followUpPage(deps: AppRouteDeps, a: ApplicantRequest, entered: Entered, errors: ErrorItem[]) {
  const { intake, t, locale } = a;
  const p = paths(deps.prefix, intake.session_id);
  return appPage(deps, {
    locale,
    t,
    title: t('followup.title'),
    orgName: intake.org_name,
    testMode: intake.environment === 'test',
    errors,
    languages: a.languages,
    children: html`
      <h1>${t('followup.title')}</h1>
      <p>${t('followup.intro')}</p>
      <form method="post" action=${p.followUps} novalidate>
        ${csrfInput(a.csrf)}
        ${intake.follow_ups.map((q) => {
          const field = followUpField(a.intake.definition, q.fact_id);
          const why = q.filename ? labelled(a, 'followup.could_not_read_doc', field.label, { file: q.filename }) : labelled(a, 'followup.could_not_read', field.label);
          return html`<div class="question">
            <p class="question__why">${why}</p>
            ${fieldControl(field, entered, errors.find((e) => e.href === q.fact_id || e.href.startsWith(`${q.fact_id}-`)), t, locale, false, a.texts)}
          </div>`;
        })}
        ${button({ text: t('followup.submit'), data: { 'prevent-double-submit': '' } })}
      </form>`,
  });
}

/**
 * GET and POST …/follow-ups: when the case came back to the applicant with `needs_input` facts,
 * one question per fact, labelled with the fact's label and saying which document was read.
 * Answers go through `answerFollowUps`, which runs the gates again once none is left open.
 */
export const followUpsPage = appRoute({
  method: 'GET',
  url: '/s/:sessionId/follow-ups',
  auth: 'applicant',
  params: sessionParams,
  handler: async ({ request, reply, deps }) => {
    const a = applicantOf(request);
    if (a.intake.status !== 'submitted' || a.intake.follow_ups.length === 0) return reply.redirect(resumePath(deps.prefix, a.intake), 303);
    return sendPage(reply, followUpPage(deps, a, {}, []));
  },
});

/** The answers' form: one field per open question, named by its fact (read by `enteredFromBody`). */
const followUpAnswers = z.looseObject({});

export const answerFollowUpsPage = appRoute({
  method: 'POST',
  url: '/s/:sessionId/follow-ups',
  auth: 'applicant',
  params: sessionParams,
  body: followUpAnswers,
  handler: async ({ request, reply, deps, body }) => {
    const a = applicantOf(request);
    if (a.intake.status !== 'submitted' || a.intake.follow_ups.length === 0) return reply.redirect(resumePath(deps.prefix, a.intake), 303);
    const entered: Entered = {};
    const answers: Record<string, unknown> = {};
    const fields = a.intake.follow_ups.map((q) => followUpField(a.intake.definition, q.fact_id));
    for (const field of fields) {
      const typed = enteredFromBody(field, body);
      Object.assign(entered, typed);
      answers[field.field_id] = answerFromEntered(field, typed);
    }
    const answered = await answerFollowUps(deps.ctx, { ...a.proof, answers, traceId: String(request.id) });
    if (!answered.ok && 'problems' in answered) {
      const errors = answered.problems.map((p) => problemItem(fields.find((f) => f.field_id === p.field_id)!, p, a));
      return sendPage(reply, followUpPage(deps, a, entered, errors), 400);
    }
    if (!answered.ok && answered.code === 'forbidden') return sendAppError(request, reply, deps, 'forbidden');
    return reply.redirect(`${paths(deps.prefix, a.intake.session_id).status}?sent=1`, 303);
  },
});
