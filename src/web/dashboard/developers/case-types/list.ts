import type { FastifyReply, FastifyRequest } from 'fastify';
import { listCaseTypes, listCaseTypeVersions, type CaseTypeVersionView, type CaseTypeView } from '../../../../domain/case-types/case-types.ts';
import type { DefinitionProblem } from '../../../../domain/case-types/definition.ts';
import type { Environment } from '../../../../config.ts';
import { html, type Markup } from '../../../render.ts';
import { button, notification, table, type ErrorItem } from '../../../ui/components.ts';
import { fileInput, textarea } from '../../../ui/fields.ts';
import { tenantOf, type DashboardRouteDeps, type DashboardViewer } from '../../context.ts';
import { csrfField } from '../../layout.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, takeFlash, type Flash } from '../flash.ts';
import { when } from '../format.ts';
import { sendDeveloperPage } from '../shell.ts';

export const CASE_TYPES_PATH = '/dashboard/developers/case-types';

/** The upload form as sent (its text, when pasted) and the problems found in it. */
export interface UploadForm {
  text: string;
  problems: DefinitionProblem[];
}

interface CaseTypesViewProps {
  environment: Environment;
  types: readonly CaseTypeView[];
  versions: ReadonlyMap<string, CaseTypeVersionView[]>;
  flash: Flash | undefined;
  form: UploadForm;
}

/** The case types of this environment with their versions and pinned cases, and the upload form. */
function caseTypesView({ environment, types, versions, flash, form }: CaseTypesViewProps, viewer: DashboardViewer): Markup {
  return html`<div class="page-header"><h1>Case types</h1></div>
    ${flash?.kind === 'notice' ? notification({ tone: 'success', role: 'status', children: html`<p>${flash.text}</p>` }) : null}
    <section class="card card--flush" aria-labelledby="types-heading">
      <h2 class="card__title card__title--inset" id="types-heading">Case types (${environment})</h2>
      ${table({
        stack: true,
        caption: 'Case types and their workflow versions',
        captionHidden: true,
        scrollRegion: true,
        rows: types,
        empty: 'No case types yet. Upload one below.',
        columns: [
          { header: 'Case type', rowHeader: true, cell: (c) => html`<a href=${`${CASE_TYPES_PATH}/${encodeURIComponent(c.case_type_id)}`}>${c.name}</a><br /><code class="muted">${c.case_type_id}</code>` },
          { header: 'Current version', cell: (c) => c.workflow_version },
          {
            header: 'Versions and pinned cases',
            cell: (c) => html`<ul class="plain-list">${(versions.get(c.case_type_id) ?? []).map((v) => html`<li>${v.workflow_version}: ${v.cases} ${v.cases === 1 ? 'case' : 'cases'}</li>`)}</ul>`,
          },
          { header: 'Updated', cell: (c) => when(c.updated_at) },
        ],
      })}
    </section>
    <section class="card" aria-labelledby="upload-heading">
      <h2 class="card__title" id="upload-heading">Upload a case type</h2>
      <p>The same JSON as <code>dossier case-type put</code>, stored in the ${environment} environment. A changed workflow, set of facts or operating mode becomes a new version; cases already started keep theirs.</p>
      ${form.problems.length
        ? html`<div class="notification notification--danger" role="region" aria-labelledby="problems-heading">
            <p class="notification__title" id="problems-heading">${form.problems.length} ${form.problems.length === 1 ? 'problem' : 'problems'} in the case type</p>
            <ul class="problems">${form.problems.map((p) => html`<li><code>${p.path}</code>: ${p.message}</li>`)}</ul>
          </div>`
        : null}
      <form method="post" action=${CASE_TYPES_PATH} enctype="multipart/form-data" novalidate>
        ${csrfField(viewer)}
        ${fileInput({ id: 'definition-file', name: 'definition_file', label: 'A JSON file', optionalText: '(or paste it below)', accept: 'application/json,.json' })}
        ${textarea({ id: 'definition-text', name: 'definition_text', label: 'The case type as JSON', optionalText: '(when no file is chosen)', rows: 14, value: form.text, error: form.problems.length ? 'Fix the problems listed above' : undefined })}
        ${button({ text: 'Upload case type', data: { 'prevent-double-submit': '' } })}
      </form>
    </section>`;
}

/** The case types page, with the upload as sent and its problems (400), or empty (200, reading the flash). */
export async function showCaseTypes(request: FastifyRequest, reply: FastifyReply, deps: DashboardRouteDeps, form: UploadForm) {
  const { ctx } = deps;
  const tenant = tenantOf(request);
  const [types, versions] = await Promise.all([listCaseTypes(ctx, { orgId: tenant.orgId, environment: tenant.environment }), listCaseTypeVersions(ctx, { orgId: tenant.orgId, environment: tenant.environment })]);
  const flash = form.problems.length === 0 ? takeFlash(reply, request, flashDeps(deps)) : undefined;
  const errors: ErrorItem[] = form.problems.map((p) => ({ href: 'definition-text', text: `${p.path}: ${p.message}` }));
  const props: CaseTypesViewProps = { environment: tenant.environment, types, versions, flash, form };
  return sendDeveloperPage(request, reply, deps, {
    title: 'Case types',
    nav: 'case-types',
    errors,
    status: errors.length ? 400 : 200,
    body: (viewer) => caseTypesView(props, viewer),
  });
}

/** GET /dashboard/developers/case-types: the case types with their versions and pinned cases, and the upload form. Admins only. */
export const caseTypesPage = dashboardRoute({
  method: 'GET',
  url: '/developers/case-types',
  auth: 'admin',
  handler: async ({ request, reply, deps }) => showCaseTypes(request, reply, deps, { text: '', problems: [] }),
});
