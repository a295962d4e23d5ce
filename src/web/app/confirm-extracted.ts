import { followUpField } from '../../domain/case-types/answer-rules.ts';
import type { UploadNode } from '../../domain/case-types/definition.ts';
import { correctFactsAsApplicant } from '../../domain/intake/applicant-corrections.ts';
import { readExtractedForConfirm, type EvidenceCrop, type ExtractedValue } from '../../domain/intake/applicant-confirm.ts';
import { formField } from '../face.ts';
import { html, sendPage } from '../render.ts';
import { button, buttonLink, type ErrorItem } from '../ui/components.ts';
import { hiddenInput } from '../ui/fields.ts';
import { problemItem } from './answer-problems.ts';
import { afterStep, applicantOf, labelled, paths, type AppRouteDeps, type ApplicantRequest } from './context.ts';
import { sendAppError } from './errors.ts';
import { answerFromEntered, enteredFromBody, fieldControl, type Entered } from './form-fields.ts';
import { formatDecimal, formatLongDate, formatMoney } from './formats.ts';
import { currencyOfMarker } from '../../domain/parsers/money.ts';
import { appPage, csrfInput } from './layout.ts';
import { appRoute, returnQuery, stepForm, stepParams } from './route.ts';

/** A value as the applicant reads it: dates and amounts in their locale's own format. */
function shownValue(v: ExtractedValue, locale: string): string {
  if (v.fact.type === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(v.value)) return formatLongDate(locale, new Date(`${v.value}T00:00:00Z`));
  if (v.fact.type === 'money' && /^-?\d+(\.\d+)?$/.test(v.value)) {
    // With the currency the document gave it: an ISO code formats as the locale writes it ("2 451,00 $US"),
    // a marker that names several currencies ("$") is kept as written before the amount.
    const amount = Number(v.value);
    const iso = v.currencyMarker === undefined ? undefined : currencyOfMarker(v.currencyMarker);
    if (iso) return formatMoney(locale, iso, amount);
    return `${v.currencyMarker ?? ''}${formatDecimal(locale, amount)}`;
  }
  return v.value;
}

/**
 * A crop of the page around the value: the page image in an SVG whose viewBox is the evidence box
 * with room around it (a line above and below, some width either side), the box outlined. The
 * browser does the cropping, so one stored page image serves every value on the page.
 */
function cropView(crop: EvidenceCrop, href: string, label: string) {
  const { box, page } = crop;
  const padX = Math.max(box.width * 0.5, page.width * 0.06);
  const padY = Math.max(box.height * 1.5, page.height * 0.02);
  const x = Math.max(0, box.x - padX);
  const y = Math.max(0, box.y - padY);
  const w = Math.min(page.width - x, box.width + 2 * padX);
  const h = Math.min(page.height - y, box.height + 2 * padY);
  return html`<svg class="crop" viewBox=${`${x} ${y} ${w} ${h}`} role="img" aria-label=${label} data-crop="">
    <image href=${href} x="0" y="0" width=${page.width} height=${page.height} preserveAspectRatio="none" />
    <rect class="crop__box" x=${box.x - 2} y=${box.y - 2} width=${box.width + 4} height=${box.height + 4} vector-effect="non-scaling-stroke" />
  </svg>`;
}

interface ConfirmView {
  node: UploadNode;
  values: ExtractedValue[] | 'reading';
  answers: Record<string, string>;
  entered: Entered;
  errors: ErrorItem[];
  returnTo: string;
}

/** "We read these from your pay stub" names the document when the step asks for one kind, in the page's language. */
function confirmTitle(a: ApplicantRequest, node: UploadNode): string {
  const only = node.documents.length === 1 ? node.documents[0] : undefined;
  return only ? labelled(a, 'confirm.title', only.label) : a.t('confirm.title.unnamed');
}

function confirmPage(deps: AppRouteDeps, a: ApplicantRequest, v: ConfirmView) {
  const { intake, t, locale } = a;
  const p = paths(deps.prefix, intake.session_id);
  const next = intake.status === 'open' ? afterStep(deps.prefix, intake, v.node, v.returnTo) : p.status;
  const confirmUrl = `${p.confirm(v.node.node_id)}${v.returnTo ? `?return=${v.returnTo}` : ''}`;
  if (v.values === 'reading') {
    const title = t('confirm.reading_title');
    return appPage(deps, {
      locale, t, title, orgName: intake.org_name, testMode: intake.environment === 'test', languages: a.languages,
      back: intake.status === 'open' ? p.step(v.node) : undefined,
      children: html`<h1>${title}</h1>
        <p>${t('confirm.reading_body')}</p>
        <div class="cluster">
          ${buttonLink({ href: confirmUrl, text: t('confirm.check_again') })}
          ${buttonLink({ href: next, text: t('confirm.carry_on'), variant: 'secondary' })}
        </div>`,
    });
  }
  const title = confirmTitle(a, v.node);
  const docs = new Map(intake.documents.map((d) => [d.doc_id, d.filename ?? '']));
  return appPage(deps, {
    locale, t, title, orgName: intake.org_name, testMode: intake.environment === 'test', languages: a.languages,
    back: intake.status === 'open' ? p.step(v.node) : undefined,
    errors: v.errors,
    children: html`<h1>${title}</h1>
      ${v.values.length === 0
        ? html`<p>${t('confirm.none')}</p><p>${buttonLink({ href: next, text: t('common.continue') })}</p>`
        : html`<p>${t('confirm.intro')}</p>
          <form method="post" action=${p.confirm(v.node.node_id)} novalidate>
            ${csrfInput(a.csrf)}
            ${v.returnTo ? hiddenInput('return', v.returnTo) : null}
            ${v.values.map((value) => {
              const id = value.fact.fact_id;
              const name = `confirm-${id}`;
              const choiceError = v.errors.find((e) => e.href === name);
              const field = { ...followUpField(intake.definition, id), hint: t('confirm.correct_hint') };
              const answer = v.answers[id] ?? '';
              return html`<section class="read-value" aria-labelledby=${`${id}-heading`}>
                <h2 id=${`${id}-heading`} class="label">${value.fact.label}</h2>
                <p class="read-value__value" data-read-value=${id}>${shownValue(value, locale)}</p>
                ${value.crop ? cropView(value.crop, p.pageImage(value.crop.docId, value.crop.pageIndex), t('confirm.crop_label', { page: value.crop.pageIndex + 1, file: docs.get(value.crop.docId) ?? '' })) : null}
                <div class=${choiceError ? 'form-group form-group--error' : 'form-group'}>
                  <fieldset aria-describedby=${choiceError ? `${name}-error` : undefined}>
                    <legend>${t('confirm.question')}<span class="visually-hidden"> ${value.fact.label}</span></legend>
                    ${choiceError ? html`<p id=${`${name}-error`} class="error-message"><span class="visually-hidden">${t('common.error_prefix')} </span>${choiceError.text}</p>` : null}
                    <div class="choices">
                      <div class="choice"><input id=${name} name=${name} type="radio" value="yes" checked=${answer === 'yes'} /><label for=${name}>${t('confirm.yes')}</label></div>
                      <div class="choice"><input id=${`${name}-no`} name=${name} type="radio" value="no" checked=${answer === 'no'} /><label for=${`${name}-no`}>${t('confirm.no')}</label></div>
                    </div>
                  </fieldset>
                </div>
                ${fieldControl(field, v.entered, v.errors.find((e) => e.href === id || e.href.startsWith(`${id}-`)), t, locale)}
              </section>`;
            })}
            ${button({ text: t('common.continue'), data: { 'prevent-double-submit': '' } })}
          </form>`}`,
  });
}

function confirmNode(a: ApplicantRequest, nodeId: string): UploadNode | undefined {
  const node = a.intake.definition.workflow.nodes.find((n) => n.node_id === nodeId);
  return node?.type === 'upload' && node.confirm_extracted ? node : undefined;
}

/**
 * GET and POST …/confirm/{node_id} (issue 26): after an upload step whose case type opts in with
 * `confirm_extracted`, "We read these from your pay stub": each value gates or operators depend
 * on, in the applicant's format, with a crop of the page around it, and "Is this right?". A "No"
 * needs the correct value, checked like a follow-up answer and stored as the applicant's
 * correction (`correctFactsAsApplicant`). While the files are still being read the page says so
 * and lets the applicant carry on; the status page asks again later. The crops' page images come
 * from GET …/documents/{doc}/pages/{n} (`page-image.ts`).
 */
export const confirmExtractedPage = appRoute({
  method: 'GET',
  url: '/s/:sessionId/confirm/:nodeId',
  auth: 'applicant',
  params: stepParams,
  query: returnQuery,
  handler: async ({ request, reply, deps, params, query }) => {
    const a = applicantOf(request);
    const node = confirmNode(a, params.nodeId);
    if (!node) return sendAppError(request, reply, deps, 'not_found');
    const returnTo = query.return === 'check' ? 'check' : '';
    const read = await readExtractedForConfirm(deps.ctx, { intake: a.intake, node });
    return sendPage(reply, confirmPage(deps, a, { node, values: read.kind === 'reading' ? 'reading' : read.values, answers: {}, entered: {}, errors: [], returnTo }));
  },
});

export const answerConfirmPage = appRoute({
  method: 'POST',
  url: '/s/:sessionId/confirm/:nodeId',
  auth: 'applicant',
  params: stepParams,
  body: stepForm,
  handler: async ({ request, reply, deps, params, body }) => {
    const a = applicantOf(request);
    const node = confirmNode(a, params.nodeId);
    if (!node) return sendAppError(request, reply, deps, 'not_found');
    const returnTo = body.return === 'check' ? 'check' : '';
    const p = paths(deps.prefix, a.intake.session_id);
    const read = await readExtractedForConfirm(deps.ctx, { intake: a.intake, node });
    if (read.kind === 'reading') return reply.redirect(p.confirm(node.node_id), 303);
    const answers: Record<string, string> = {};
    const entered: Entered = {};
    const values: Record<string, unknown> = {};
    const errors: ErrorItem[] = [];
    for (const v of read.values) {
      const id = v.fact.fact_id;
      const answer = formField(body, `confirm-${id}`);
      answers[id] = answer;
      const field = followUpField(a.intake.definition, id);
      const typed = enteredFromBody(field, body);
      Object.assign(entered, typed);
      if (answer === 'no') values[id] = answerFromEntered(field, typed);
      else if (answer !== 'yes') errors.push({ href: `confirm-${id}`, text: labelled(a, 'confirm.error_choose', v.fact.label) });
    }
    if (errors.length === 0 && Object.keys(values).length > 0) {
      const corrected = await correctFactsAsApplicant(deps.ctx, { ...a.proof, nodeId: node.node_id, values, traceId: String(request.id) });
      if (!corrected.ok && 'problems' in corrected) {
        for (const problem of corrected.problems) errors.push(problemItem(followUpField(a.intake.definition, problem.field_id), problem, a));
      } else if (!corrected.ok) {
        return corrected.code === 'forbidden' ? sendAppError(request, reply, deps, 'forbidden') : reply.redirect(p.status, 303);
      }
    }
    if (errors.length > 0) return sendPage(reply, confirmPage(deps, a, { node, values: read.values, answers, entered, errors, returnTo }), 400);
    return reply.redirect(a.intake.status === 'open' ? afterStep(deps.prefix, a.intake, node, returnTo) : p.status, 303);
  },
});
