import { submitIntake } from '../../domain/intake/submit-intake.ts';
import { html, sendPage } from '../render.ts';
import { button, summaryList, tag, type ErrorItem, type SummaryRow } from '../ui/components.ts';
import { applicantOf, labelled, paths, stepsOf, type AppRouteDeps, type ApplicantRequest } from './context.ts';
import { sendAppError } from './errors.ts';
import { answerText } from '../../domain/case-types/field-values.ts';
import { answerDisplay } from './form-fields.ts';
import { fileSize } from './step-upload.ts';
import { appPage, csrfInput } from './layout.ts';
import { appRoute, sessionParams } from './route.ts';

/** What must still be answered or uploaded before submitting, each linking to its step. */
function missingItems(deps: AppRouteDeps, a: ApplicantRequest): ErrorItem[] {
  const { intake } = a;
  const p = paths(deps.prefix, intake.session_id);
  const items: ErrorItem[] = [];
  for (const step of stepsOf(intake)) {
    if (step.type === 'form') {
      for (const f of step.fields) {
        if (f.required && answerText(intake.answers[f.field_id]) === undefined) items.push({ href: `${p.step(step)}?return=check`, text: labelled(a, 'check.missing_field', f.label) });
      }
    } else {
      for (const k of step.documents) {
        if (k.required && !intake.documents.some((d) => d.document_kind === k.document_kind && d.status !== 'failed')) {
          items.push({ href: `${p.step(step)}?return=check`, text: labelled(a, 'check.missing_document', k.label) });
        }
      }
    }
  }
  return items;
}

function checkPage(deps: AppRouteDeps, a: ApplicantRequest, missing: ErrorItem[]) {
  const { intake, t, locale } = a;
  const p = paths(deps.prefix, intake.session_id);
  const steps = stepsOf(intake);
  const change = (href: string, hiddenText: string) => ({ href: `${href}?return=check`, text: t('common.change'), hiddenText });
  const sections = steps.map((step) => {
    const rows: SummaryRow[] =
      step.type === 'form'
        ? step.fields.map((f) => {
            const shown = answerDisplay(f, intake.answers[f.field_id], t, locale, a.texts);
            return { key: f.label, value: shown === '' ? html`<span class="muted">${t('check.not_answered')}</span>` : shown, action: change(p.step(step), f.label) };
          })
        : step.documents.map((k) => {
            const docs = intake.documents.filter((d) => d.document_kind === k.document_kind);
            return {
              key: k.label,
              value: docs.length === 0 ? html`<span class="muted">${t('check.no_files')}</span>` : html`<ul class="plain-list">${docs.map((d) => html`<li>${d.filename} <span class="muted small">${fileSize(d.byte_size, t, locale)}</span>${d.status === 'failed' ? html` ${tag(t('upload.status.failed'), 'danger')}` : null}</li>`)}</ul>`,
              action: change(p.step(step), k.label),
            };
          });
    return html`<h2>${step.title}</h2>${summaryList(rows)}`;
  });
  // Error-summary links here go to the step to fix, not to a field on this page.
  const errors = missing.map((m) => ({ ...m, href: m.href }));
  return appPage(deps, {
    locale,
    t,
    title: t('check.title'),
    orgName: intake.org_name,
    testMode: intake.environment === 'test',
    back: steps.length >= 3 ? p.tasks : steps.at(-1) ? p.step(steps.at(-1)!) : undefined,
    languages: a.languages,
    children: html`
      ${errors.length > 0
        ? html`<div class="error-summary" role="alert" aria-labelledby="error-summary-title" tabindex="-1" data-focus-on-load="">
            <h2 class="error-summary__title" id="error-summary-title">${t('common.error_summary_title')}</h2>
            <ul class="error-summary__list">${errors.map((e) => html`<li><a href=${e.href}>${e.text}</a></li>`)}</ul>
          </div>`
        : null}
      <h1>${t('check.title')}</h1>
      ${sections}
      <h2>${t('check.send_heading')}</h2>
      <p>${t('check.declaration')}</p>
      <form method="post" action=${p.submit} novalidate>
        ${csrfInput(a.csrf)}
        ${button({ text: t('check.submit'), data: { 'prevent-double-submit': '' } })}
      </form>`,
  });
}

/**
 * GET …/check: every answer and file with a Change link that comes back here; POST …/submit
 * calls `submitIntake` once. A second submit (double click, back button) finds the session
 * submitted and lands on the status page: the domain refuses to submit twice.
 */
export const checkAnswersPage = appRoute({
  method: 'GET',
  url: '/s/:sessionId/check',
  auth: 'applicant',
  params: sessionParams,
  handler: async ({ request, reply, deps }) => {
    const a = applicantOf(request);
    if (a.intake.status !== 'open') return reply.redirect(paths(deps.prefix, a.intake.session_id).status, 303);
    return sendPage(reply, checkPage(deps, a, []));
  },
});

/** POST …/submit: the check page's form; what is still missing shows on the check page again (400). */
export const submitPage = appRoute({
  method: 'POST',
  url: '/s/:sessionId/submit',
  auth: 'applicant',
  params: sessionParams,
  handler: async ({ request, reply, deps }) => {
    const a = applicantOf(request);
    const p = paths(deps.prefix, a.intake.session_id);
    if (a.intake.status !== 'open') return reply.redirect(`${p.status}?already=1`, 303);
    const missing = missingItems(deps, a);
    if (missing.length > 0) return sendPage(reply, checkPage(deps, a, missing), 400);
    const submitted = await submitIntake(deps.ctx, { ...a.proof, traceId: String(request.id) });
    if (!submitted.ok && submitted.code === 'forbidden') return sendAppError(request, reply, deps, 'forbidden');
    // Already submitted by a request that won the race: the same status page, nothing submitted twice.
    return reply.redirect(submitted.ok ? `${p.status}?sent=1` : `${p.status}?already=1`, 303);
  },
});
