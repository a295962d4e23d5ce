import { html, sendPage } from '../render.ts';
import { tag } from '../ui/components.ts';
import { applicantOf, paths, stepDone, stepsOf } from './context.ts';
import { appPage } from './layout.ts';
import { appRoute, sessionParams } from './route.ts';

/**
 * GET …/tasks: with three or more applicant steps, an overview of each step and its status
 * (GOV.UK task list); the check-and-submit entry opens once every step is done.
 */
export const taskListPage = appRoute({
  method: 'GET',
  url: '/s/:sessionId/tasks',
  auth: 'applicant',
  params: sessionParams,
  handler: async ({ request, reply, deps }) => {
    const { intake, t, locale, languages } = applicantOf(request);
    const p = paths(deps.prefix, intake.session_id);
    if (intake.status === 'submitted') return reply.redirect(p.status, 303);
    const steps = stepsOf(intake);
    const allDone = steps.every((s) => stepDone(intake, s));
    const row = (text: string, href: string | undefined, status: ReturnType<typeof tag>) =>
      html`<li class="task-list__item"><span>${href ? html`<a href=${href}>${text}</a>` : text}</span>${status}</li>`;
    return sendPage(
      reply,
      appPage(deps, {
        locale,
        t,
        title: t('tasks.title'),
        orgName: intake.org_name,
        testMode: intake.environment === 'test',
        languages,
        children: html`<h1>${t('tasks.title')}</h1>
          <p>${t('tasks.intro')}</p>
          <ul class="task-list">
            ${steps.map((s) => row(s.title, p.step(s), stepDone(intake, s) ? tag(t('tasks.completed'), 'success') : tag(t('tasks.not_started'), 'info')))}
            ${row(t('tasks.check'), allDone ? p.check : undefined, allDone ? tag(t('tasks.not_started'), 'info') : tag(t('tasks.cannot_start')))}
          </ul>`,
      }),
    );
  },
});
