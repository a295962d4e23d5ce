import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getCaseType, listCaseTypes, listCaseTypeVersions, loadPinnedDefinition, putCaseType } from '../../../domain/case-types/case-types.ts';
import type { CaseTypeDefinition, DefinitionProblem, GateRule, WorkflowNode } from '../../../domain/case-types/definition.ts';
import { missingTranslations } from '../../../domain/case-types/translations.ts';
import { formField } from '../../face.ts';
import { html, type Markup } from '../../render.ts';
import { backLink, button, notification, summaryList, table, tag, type ErrorItem } from '../../ui/components.ts';
import { fileInput, textarea } from '../../ui/fields.ts';
import { tenantOf, type DashboardRouteDeps } from '../context.ts';
import { csrfField } from '../layout.ts';
import { setFlash, takeFlash } from './flash.ts';
import { when } from './format.ts';
import { sendDeveloperPage } from './shell.ts';

const CASE_TYPES_PATH = '/dashboard/developers/case-types';
/** Case types are small JSON documents; the examples are under 10 KiB. */
const MAX_DEFINITION_BYTES = 512 * 1024;

function ruleText(rule: GateRule): string {
  switch (rule.type) {
    case 'required':
      return `${rule.fact_ids.join(', ')} must be found`;
    case 'within_days':
      return `${rule.fact_id} must be within the last ${rule.days} days`;
    case 'matches_input':
      return `${rule.fact_id} must match the answer to ${rule.field_id}`;
    case 'min':
      return `${rule.fact_id} must be at least ${rule.value}`;
    case 'max':
      return `${rule.fact_id} must be at most ${rule.value}`;
    case 'one_of':
      return `${rule.fact_id} must be one of ${rule.values.join(', ')}`;
  }
}

const NODE_KIND: Record<WorkflowNode['type'], string> = { form: 'Form', upload: 'Upload', gate: 'Gate', review: 'Operator review', action: 'Action' };

function stepBody(node: WorkflowNode): Markup {
  switch (node.type) {
    case 'form':
      return html`<ul>${node.fields.map((f) => html`<li>${f.label} <span class="muted">(<code>${f.field_id}</code>, ${f.type}${f.required ? ', required' : ''})</span></li>`)}</ul>`;
    case 'upload':
      return html`<ul>${node.documents.map((d) => html`<li>${d.label} <span class="muted">(<code>${d.document_kind}</code>${d.required ? ', required' : ''}, up to ${d.max_files})</span></li>`)}</ul>`;
    case 'gate':
      return html`<ul>${node.rules.map((r) => html`<li><strong>${ruleText(r)}</strong> <span class="muted">(<code>${r.rule_id}</code>)</span><br /><span class="rule-why">Why: ${r.why}</span></li>`)}</ul>`;
    case 'review':
      return html`<p>An operator reviews the case and decides.</p>`;
    case 'action':
      return html`<p>Calls <code>${node.connector_key}</code> · <code>${node.operation_id}</code> ${node.when.replace('on_', 'on ').replace('_', ' ')}, with ${Object.keys(node.inputs).length} input${Object.keys(node.inputs).length === 1 ? '' : 's'}.</p>`;
  }
}

function workflowView(def: CaseTypeDefinition): Markup {
  return html`<section class="card" aria-labelledby="steps-heading">
      <h2 class="card__title" id="steps-heading">Workflow steps</h2>
      <ol class="workflow-steps">
        ${def.workflow.nodes.map(
          (n, i) => html`<li class=${n.type === 'gate' ? 'step--gate' : undefined}>
            <h3>${i + 1}. ${n.title} ${tag(NODE_KIND[n.type], n.type === 'gate' ? 'info' : 'neutral')}</h3>
            ${stepBody(n)}
          </li>`,
        )}
      </ol>
    </section>
    <section class="card card--flush" aria-labelledby="facts-heading">
      <h2 class="card__title card__title--inset" id="facts-heading">Facts</h2>
      ${table({
        stack: true,
        caption: 'Facts of this case type',
        captionHidden: true,
        scrollRegion: true,
        rows: def.facts,
        columns: [
          { header: 'Fact', rowHeader: true, cell: (f) => html`${f.label}<br /><code class="muted">${f.fact_id}</code>` },
          { header: 'Type', cell: (f) => f.type },
          { header: 'Required', cell: (f) => (f.required ? 'Yes' : 'No') },
          { header: 'Documents', cell: (f) => (f.document_kinds.length ? f.document_kinds.join(', ') : 'Any') },
          { header: 'Anchors', cell: (f) => f.anchors.join(', ') },
        ],
      })}
    </section>`;
}

/**
 * Which applicant texts have no translation, per locale: warnings, not errors. The applicant
 * still gets the page, with those texts in English and the messages around them phrased without
 * them, so a partly translated case type is usable but should be finished.
 */
function translationsView(def: CaseTypeDefinition): Markup {
  const missing = missingTranslations(def);
  return html`<section class="card" aria-labelledby="translations-heading">
    <h2 class="card__title" id="translations-heading">Translations</h2>
    ${missing.length === 0
      ? html`<p>Every applicant-facing text is translated into French, German and Spanish.</p>`
      : html`<div class="notification notification--warning" role="region" aria-labelledby="translations-warning">
            <p class="notification__title" id="translations-warning">Warning: ${missing.map((m) => `${m.missing.length} ${m.missing.length === 1 ? 'text' : 'texts'} without a ${m.language} translation`).join(', ')}</p>
            <p>Applicants reading in these languages see these texts in English. Add them under <code>translations</code>, keyed as below.</p>
          </div>
          ${missing.map(
            (m) => html`<h3>${m.language} (<code>${m.locale}</code>)</h3>
              <ul class="problems">${m.missing.map((x) => html`<li><code>${x.key}</code>: ${x.english}</li>`)}</ul>`,
          )}`}
  </section>`;
}

interface UploadForm {
  text: string;
  problems: DefinitionProblem[];
}

/** Case types: list with versions and pinned cases, a workflow view, and upload with `dossier case-type put`'s validation. Admins only. */
export function registerCaseTypes(scope: FastifyInstance, deps: DashboardRouteDeps): void {
  const { ctx } = deps;
  const flashDeps = { secret: deps.secret, baseUrl: ctx.config.baseUrl };

  const listPage = async (request: FastifyRequest, reply: FastifyReply, form: UploadForm) => {
    const tenant = tenantOf(request);
    const [types, versions] = await Promise.all([listCaseTypes(ctx, { orgId: tenant.orgId, environment: tenant.environment }), listCaseTypeVersions(ctx, { orgId: tenant.orgId, environment: tenant.environment })]);
    const flash = form.problems.length === 0 ? takeFlash(reply, request, flashDeps) : undefined;
    const errors: ErrorItem[] = form.problems.map((p) => ({ href: 'definition-text', text: `${p.path}: ${p.message}` }));
    return sendDeveloperPage(request, reply, deps, {
      title: 'Case types',
      nav: 'case-types',
      errors,
      status: errors.length ? 400 : 200,
      body: (viewer) => html`<div class="page-header"><h1>Case types</h1></div>
        ${flash?.kind === 'notice' ? notification({ tone: 'success', role: 'status', children: html`<p>${flash.text}</p>` }) : null}
        <section class="card card--flush" aria-labelledby="types-heading">
          <h2 class="card__title card__title--inset" id="types-heading">Case types (${tenant.environment})</h2>
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
          <p>The same JSON as <code>dossier case-type put</code>, stored in the ${tenant.environment} environment. A changed workflow, set of facts or operating mode becomes a new version; cases already started keep theirs.</p>
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
        </section>`,
    });
  };

  scope.get('/developers/case-types', { config: { auth: 'admin' } }, async (request, reply) => listPage(request, reply, { text: '', problems: [] }));

  // Multipart only here: a file or pasted text, fields parsed before the CSRF check reads `_csrf`.
  scope.register(async (upload) => {
    await upload.register(multipart, { attachFieldsToBody: 'keyValues', limits: { fileSize: MAX_DEFINITION_BYTES, files: 1, fields: 4, fieldSize: MAX_DEFINITION_BYTES } });
    upload.post('/developers/case-types', { config: { auth: 'admin' } }, async (request, reply) => {
      const body = request.body as Record<string, unknown>;
      const file = body.definition_file;
      const fileText = Buffer.isBuffer(file) ? file.toString('utf8') : typeof file === 'string' ? file : '';
      const text = fileText.trim() !== '' ? fileText : formField(body, 'definition_text');
      if (text.trim() === '') return listPage(request, reply, { text, problems: [{ path: '$', message: 'Choose a JSON file or paste the case type' }] });
      let definition: unknown;
      try {
        definition = JSON.parse(text);
      } catch (err) {
        return listPage(request, reply, { text, problems: [{ path: '$', message: `This is not valid JSON: ${(err as Error).message}` }] });
      }
      const tenant = tenantOf(request);
      const put = await putCaseType(ctx, { orgId: tenant.orgId, environment: tenant.environment, definition });
      if (!put.ok) return listPage(request, reply, { text, problems: put.problems });
      const v = put.value;
      const stored = v.version_created ? `${v.case_type_id} is stored as version ${v.workflow_version}.` : `${v.case_type_id} is unchanged in behaviour: still version ${v.workflow_version}.`;
      const warned = v.warnings.length > 0 ? ` ${v.warnings.length} ${v.warnings.length === 1 ? 'language has' : 'languages have'} missing translations: see the case type's page.` : '';
      setFlash(reply, request, flashDeps, { kind: 'notice', text: `${stored}${warned}` });
      return reply.redirect(CASE_TYPES_PATH, 303);
    });
  });

  scope.get('/developers/case-types/:case_type_id', { config: { auth: 'admin' } }, async (request, reply) => {
    const { case_type_id } = request.params as { case_type_id: string };
    const { version: asked } = request.query as { version?: unknown };
    const tenant = tenantOf(request);
    const found = await getCaseType(ctx, { orgId: tenant.orgId, environment: tenant.environment, caseTypeId: case_type_id });
    if (!found.ok) return reply.callNotFound();
    const c = found.value;
    const versions = (await listCaseTypeVersions(ctx, { orgId: tenant.orgId, environment: tenant.environment })).get(c.case_type_id) ?? [];
    // An older version is viewable too: cases stay pinned to it, so an operator may need its rules.
    const shown = typeof asked === 'string' && asked !== '' ? asked : c.workflow_version;
    if (!versions.some((v) => v.workflow_version === shown)) return reply.callNotFound();
    const definition = shown === c.workflow_version ? c.definition : await loadPinnedDefinition(ctx, { tenant, caseTypeId: c.case_type_id, workflowVersion: shown });
    const pagePath = `${CASE_TYPES_PATH}/${encodeURIComponent(c.case_type_id)}`;
    return sendDeveloperPage(request, reply, deps, {
      title: shown === c.workflow_version ? c.name : `${c.name} (${shown})`,
      nav: 'case-types',
      body: () => html`${backLink(CASE_TYPES_PATH, 'Back to case types')}
        <div class="page-header"><h1>${c.name}</h1>${tag(shown, 'info')}</div>
        ${shown !== c.workflow_version
          ? notification({ tone: 'info', children: html`<p>You are viewing version ${shown}, kept for the cases pinned to it. New cases use version ${c.workflow_version}: <a href=${pagePath}>view the current version</a>.</p>` })
          : null}
        <section class="card" aria-labelledby="about-heading">
          <h2 class="card__title" id="about-heading">About</h2>
          ${summaryList([
            { key: 'Case type id', value: html`<code>${c.case_type_id}</code>` },
            { key: 'Operating mode', value: definition.operating_mode },
            { key: 'Workflow', value: html`<code>${definition.workflow.workflow_id}</code>, version ${shown}` },
            {
              key: 'Versions',
              value: html`<ul class="plain-list">${versions.map(
                (v) => html`<li>${v.workflow_version === shown
                  ? html`<strong aria-current="page">${v.workflow_version}</strong>`
                  : html`<a href=${`${pagePath}?version=${encodeURIComponent(v.workflow_version)}`}>${v.workflow_version}</a>`} (${when(v.created_at)}): ${v.cases} ${v.cases === 1 ? 'case' : 'cases'} pinned${v.workflow_version === c.workflow_version ? ', current' : ''}</li>`,
              )}</ul>`,
            },
          ])}
        </section>
        ${translationsView(definition)}
        ${workflowView(definition)}`,
    });
  });
}
