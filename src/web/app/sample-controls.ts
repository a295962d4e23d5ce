import type { UploadNode } from '../../domain/case-types/definition.ts';
import { availableOutcomes } from '../../domain/samples/sample-plan.ts';
import { html } from '../render.ts';
import { CSRF_FIELD } from '../csrf.ts';
import { labelParams, paths, type AppRouteDeps, type ApplicantRequest } from './context.ts';

type Kind = UploadNode['documents'][number];

const samplePath = (deps: AppRouteDeps, sessionId: string, nodeId: string) => `${paths(deps.prefix, sessionId).base}/upload/${nodeId}/sample`;
const sampleFormId = (kind: Kind) => `sample-${kind.document_kind}-form`;

/**
 * "Use a sample document" under a document kind's file control, in test sessions only: an outcome
 * select and a button that post their own small form (CSRF token, kind, outcome), so it works
 * without JavaScript. The controls sit inside the page's upload form and point at their form with
 * `form=` (forms do not nest; the form itself is drawn after the page's, by {@link sampleForms}).
 * The sample is a real PDF read like an upload, so every branch of the intake can be tried
 * without a real document.
 */
export function sampleControls(_deps: AppRouteDeps, a: ApplicantRequest, _node: UploadNode, kind: Kind) {
  if (a.intake.environment !== 'test') return null;
  const { t } = a;
  const id = `sample-${kind.document_kind}`;
  const formId = sampleFormId(kind);
  return html`<div class="sample-documents" data-sample-documents="">
    <input type="hidden" name=${CSRF_FIELD} value=${a.csrf} form=${formId} />
    <input type="hidden" name="kind" value=${kind.document_kind} form=${formId} />
    <div class="form-group">
      <label class="label" for=${id}>${t('sample.label')}</label>
      <div id=${`${id}-hint`} class="hint">${t('sample.hint', labelParams(kind.label))}</div>
      <select class="select" id=${id} name="outcome" form=${formId} aria-describedby=${`${id}-hint`}>
        ${availableOutcomes(a.intake.definition, kind.document_kind).map((o) => html`<option value=${o} selected=${o === 'all_facts'}>${t(`sample.outcome.${o}`)}</option>`)}
      </select>
    </div>
    <button class="button button--secondary" type="submit" form=${formId}>${t('sample.button')}</button>
  </div>`;
}

/** The sample forms themselves, one per document kind of the step, outside the page's upload form. */
export function sampleForms(deps: AppRouteDeps, a: ApplicantRequest, node: UploadNode) {
  if (a.intake.environment !== 'test') return null;
  return node.documents.map((kind) => html`<form id=${sampleFormId(kind)} method="post" action=${samplePath(deps, a.intake.session_id, node.node_id)}></form>`);
}
