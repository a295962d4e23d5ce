import { z } from 'zod';
import { getCaseType, listCaseTypeVersions, loadPinnedDefinition, type CaseTypeVersionView } from '../../../../domain/case-types/case-types.ts';
import type { CaseTypeDefinition, GateRule, WorkflowNode } from '../../../../domain/case-types/definition.ts';
import { missingTranslations } from '../../../../domain/case-types/translations.ts';
import { queryText } from '../../../page-route.ts';
import { html, type Markup } from '../../../render.ts';
import { backLink, button, notification, summaryList, table, tag } from '../../../ui/components.ts';
import { fileInput, select } from '../../../ui/fields.ts';
import { csrfField } from '../../layout.ts';
import type { DashboardViewer } from '../../context.ts';
import { caseTypeTryPath } from './try.ts';
import { tenantOf } from '../../context.ts';
import { dashboardRoute } from '../../route.ts';
import { when } from '../format.ts';
import { sendDeveloperPage } from '../shell.ts';
import { CASE_TYPES_PATH } from './list.ts';

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

interface CaseTypeViewProps {
  caseTypeId: string;
  name: string;
  /** The version new cases get. */
  current: string;
  /** The version shown, and its definition. */
  shown: string;
  definition: CaseTypeDefinition;
  versions: readonly CaseTypeVersionView[];
}

/**
 * "Try a document" (issue 28 §4): a sample read against the current version's facts, answered on
 * a page of its own with what was found, where, by which anchor, and which labels would find the rest.
 */
function tryView(caseTypeId: string, definition: CaseTypeDefinition, viewer: DashboardViewer): Markup {
  const kinds = [...new Set(definition.workflow.nodes.flatMap((n) => (n.type === 'upload' ? n.documents.map((d) => d.document_kind) : [])))];
  return html`<section class="card" aria-labelledby="try-heading">
    <h2 class="card__title" id="try-heading">Try a document</h2>
    <p>Upload a sample to see what the facts' anchors read in it, and which labels of the sample would find the facts they miss. Nothing is stored.</p>
    <form method="post" action=${caseTypeTryPath(caseTypeId)} enctype="multipart/form-data" novalidate>
      ${csrfField(viewer)}
      ${fileInput({ id: 'sample-file', name: 'sample_file', label: 'A sample document', hint: 'PDF, PNG, JPEG, DOCX or text, up to 20 MB', accept: 'application/pdf,image/png,image/jpeg,.docx,text/plain' })}
      ${kinds.length > 0 ? select({ id: 'document-kind', name: 'document_kind', label: 'Document kind', options: [{ value: '', text: 'Every fact' }, ...kinds.map((k) => ({ value: k, text: k }))] }) : null}
      ${button({ text: 'Try a document', data: { 'prevent-double-submit': '' } })}
    </form>
  </section>`;
}

/** One case type at one of its versions: what it is, its versions with their pinned cases, missing translations and the workflow. */
function caseTypeView({ caseTypeId, name, current, shown, definition, versions }: CaseTypeViewProps, viewer: DashboardViewer): Markup {
  const pagePath = `${CASE_TYPES_PATH}/${encodeURIComponent(caseTypeId)}`;
  return html`${backLink(CASE_TYPES_PATH, 'Back to case types')}
    <div class="page-header"><h1>${name}</h1>${tag(shown, 'info')}</div>
    ${shown !== current
      ? notification({ tone: 'info', children: html`<p>You are viewing version ${shown}, kept for the cases pinned to it. New cases use version ${current}: <a href=${pagePath}>view the current version</a>.</p>` })
      : null}
    <section class="card" aria-labelledby="about-heading">
      <h2 class="card__title" id="about-heading">About</h2>
      ${summaryList([
        { key: 'Case type id', value: html`<code>${caseTypeId}</code>` },
        { key: 'Operating mode', value: definition.operating_mode },
        { key: 'Workflow', value: html`<code>${definition.workflow.workflow_id}</code>, version ${shown}` },
        {
          key: 'Versions',
          value: html`<ul class="plain-list">${versions.map(
            (v) => html`<li>${v.workflow_version === shown
              ? html`<strong aria-current="page">${v.workflow_version}</strong>`
              : html`<a href=${`${pagePath}?version=${encodeURIComponent(v.workflow_version)}`}>${v.workflow_version}</a>`} (${when(v.created_at)}): ${v.cases} ${v.cases === 1 ? 'case' : 'cases'} pinned${v.workflow_version === current ? ', current' : ''}</li>`,
          )}</ul>`,
        },
      ])}
    </section>
    ${shown === current ? tryView(caseTypeId, definition, viewer) : null}
    ${translationsView(definition)}
    ${workflowView(definition)}`;
}

/** GET /dashboard/developers/case-types/{case_type_id}[?version=…]: a case type at its current version, or an older one. Admins only. */
export const caseTypePage = dashboardRoute({
  method: 'GET',
  url: '/developers/case-types/:case_type_id',
  auth: 'admin',
  params: z.object({ case_type_id: z.string() }),
  query: z.object({ version: queryText }),
  handler: async ({ request, reply, params, query, deps }) => {
    const { ctx } = deps;
    const tenant = tenantOf(request);
    const found = await getCaseType(ctx, { orgId: tenant.orgId, environment: tenant.environment, caseTypeId: params.case_type_id });
    if (!found.ok) return reply.callNotFound();
    const c = found.value;
    const versions = (await listCaseTypeVersions(ctx, { orgId: tenant.orgId, environment: tenant.environment })).get(c.case_type_id) ?? [];
    // An older version is viewable too: cases stay pinned to it, so an operator may need its rules.
    const shown = query.version !== undefined && query.version !== '' ? query.version : c.workflow_version;
    if (!versions.some((v) => v.workflow_version === shown)) return reply.callNotFound();
    const definition = shown === c.workflow_version ? c.definition : await loadPinnedDefinition(ctx, { tenant, caseTypeId: c.case_type_id, workflowVersion: shown });
    return sendDeveloperPage(request, reply, deps, {
      title: shown === c.workflow_version ? c.name : `${c.name} (${shown})`,
      nav: 'case-types',
      body: (viewer) => caseTypeView({ caseTypeId: c.case_type_id, name: c.name, current: c.workflow_version, shown, definition, versions }, viewer),
    });
  },
});
