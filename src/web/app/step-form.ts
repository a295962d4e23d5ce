import type { FastifyReply } from 'fastify';
import type { FormNode } from '../../domain/case-types/definition.ts';
import { saveFormAnswers } from '../../domain/intake/submit-intake.ts';
import { html, sendPage } from '../render.ts';
import { button, type ErrorItem } from '../ui/components.ts';
import { hiddenInput } from '../ui/fields.ts';
import { afterStep, applicantOf, beforeStep, paths, stepsOf, type AppRouteDeps, type ApplicantRequest } from './context.ts';
import { sendAppError } from './errors.ts';
import { problemItem } from './answer-problems.ts';
import { answerFromEntered, enteredFromAnswer, enteredFromBody, fieldControl, type Entered } from './form-fields.ts';
import { formatDateTime } from './formats.ts';
import { appPage, csrfInput } from './layout.ts';
import { appRoute, returnQuery, stepForm, stepParams } from './route.ts';

interface FormView {
  node: FormNode;
  entered: Entered;
  errors: ErrorItem[];
  returnTo: string;
}

function formPage(deps: AppRouteDeps, a: ApplicantRequest, v: FormView) {
  const { intake, t, locale } = a;
  const steps = stepsOf(intake);
  const index = steps.findIndex((s) => s.node_id === v.node.node_id);
  const p = paths(deps.prefix, intake.session_id);
  const back = v.returnTo === 'check' ? p.check : beforeStep(deps.prefix, intake, v.node);
  return appPage(deps, {
    locale,
    t,
    title: v.node.title,
    orgName: intake.org_name,
    testMode: intake.environment === 'test',
    back,
    errors: v.errors,
    languages: a.languages,
    children: html`
      ${steps.length > 1 ? html`<span class="caption">${t('common.step_of', { n: index + 1, total: steps.length })}</span>` : null}
      <h1>${v.node.title}</h1>
      <form method="post" action=${p.step(v.node)} novalidate>
        ${csrfInput(a.csrf)}
        ${v.returnTo ? hiddenInput('return', v.returnTo) : null}
        ${v.node.fields.map((f) => fieldControl(f, v.entered, v.errors.find((e) => e.href === f.field_id || e.href.startsWith(`${f.field_id}-`)), t, locale, false, a.texts))}
        ${button({ text: t('common.continue'), data: { 'prevent-double-submit': '' } })}
      </form>
      <p class="muted small">${t('common.saved_notice', { date: `${formatDateTime(locale, intake.expires_at)} UTC` })}</p>`,
  });
}

function formNode(a: ApplicantRequest, nodeId: string): FormNode | undefined {
  const node = a.intake.definition.workflow.nodes.find((n) => n.node_id === nodeId);
  return node?.type === 'form' ? node : undefined;
}

/** A closed session's pages give way to its status page. */
const closed = (reply: FastifyReply, deps: AppRouteDeps, a: ApplicantRequest) => reply.redirect(paths(deps.prefix, a.intake.session_id).status, 303);

/**
 * GET and POST …/form/{node_id}: one page per form node, its title as the heading. Fields are
 * pre-filled from the session's prefill and whatever was saved; "Continue" hands what was typed
 * to `saveFormAnswers`, whose rules decide; a refusal re-shows everything typed with an error
 * summary in the applicant's words, else the page moves on (back to the check page when the applicant came from a Change link).
 */
export const formStepPage = appRoute({
  method: 'GET',
  url: '/s/:sessionId/form/:nodeId',
  auth: 'applicant',
  params: stepParams,
  query: returnQuery,
  handler: async ({ request, reply, deps, params, query }) => {
    const a = applicantOf(request);
    if (a.intake.status !== 'open') return closed(reply, deps, a);
    const node = formNode(a, params.nodeId);
    if (!node) return sendAppError(request, reply, deps, 'not_found');
    const entered = Object.assign({}, ...node.fields.map((f) => enteredFromAnswer(f, a.intake.answers[f.field_id]))) as Entered;
    const returnTo = query.return === 'check' ? 'check' : '';
    return sendPage(reply, formPage(deps, a, { node, entered, errors: [], returnTo }));
  },
});

export const saveFormStepPage = appRoute({
  method: 'POST',
  url: '/s/:sessionId/form/:nodeId',
  auth: 'applicant',
  params: stepParams,
  body: stepForm,
  handler: async ({ request, reply, deps, params, body }) => {
    const a = applicantOf(request);
    if (a.intake.status !== 'open') return closed(reply, deps, a);
    const node = formNode(a, params.nodeId);
    if (!node) return sendAppError(request, reply, deps, 'not_found');
    const returnTo = body.return === 'check' ? 'check' : '';
    const entered: Entered = {};
    const answers: Record<string, unknown> = {};
    for (const field of node.fields) {
      const typed = enteredFromBody(field, body);
      Object.assign(entered, typed);
      answers[field.field_id] = answerFromEntered(field, typed);
    }
    const saved = await saveFormAnswers(deps.ctx, { ...a.proof, answers, traceId: String(request.id) });
    if (!saved.ok && 'problems' in saved) {
      const errors = saved.problems.map((p) => problemItem(node.fields.find((f) => f.field_id === p.field_id)!, p, a));
      return sendPage(reply, formPage(deps, a, { node, entered, errors, returnTo }), 400);
    }
    if (!saved.ok) return saved.code === 'forbidden' ? sendAppError(request, reply, deps, 'forbidden') : closed(reply, deps, a);
    return reply.redirect(afterStep(deps.prefix, a.intake, node, returnTo), 303);
  },
});
