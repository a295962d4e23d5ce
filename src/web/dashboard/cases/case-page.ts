import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { correctFact } from '../../../domain/cases/correct-fact.ts';
import { decideCase } from '../../../domain/cases/decide-case.ts';
import { readConsoleCase, type ConsoleCase } from '../../../domain/console/case-view.ts';
import { readConsolePackage, renderConsoleCaseFile } from '../../../domain/console/case-files.ts';
import { eraseCase, eraseDocument } from '../../../domain/erasure/erase.ts';
import { AppError, unwrap } from '../../../domain/errors.ts';
import { formField } from '../../face.ts';
import { html, sendPage } from '../../render.ts';
import { backLink, button, type ErrorItem } from '../../ui/components.ts';
import { hiddenInput } from '../../ui/fields.ts';
import { operatorSessionOf, tenantOf, viewerOf, type DashboardRouteDeps } from '../context.ts';
import { csrfField, dashboardPage } from '../layout.ts';
import { applicantAnswersSection, caseHeader, caseStatusLine, decisionSection, rejectConfirmationBody, documentsSection, factList, noticeBanner, timelineSection, type CaseFormState } from './case-sections.ts';
import { evidenceViewer, parseZoom, registerEvidenceRoutes, type ViewerLinks, type Zoom } from './evidence-viewer.ts';

const caseParams = z.object({ case_id: z.string().min(1).max(100) });
const factParams = z.object({ case_id: z.string().min(1).max(100), fact_id: z.string().min(1).max(64) });
const MAX_TEXT = 2000;

function caseIdOf(request: FastifyRequest): string {
  const parsed = caseParams.safeParse(request.params);
  if (!parsed.success) throw new AppError('not_found', 'No such case.');
  return parsed.data.case_id;
}

interface Selection {
  fact: string | undefined;
  ev: number | undefined;
  page: number | undefined;
  zoom: Zoom;
  notice: string | undefined;
}

function selectionOf(query: Record<string, string | undefined>): Selection {
  const int = (v: string | undefined) => (v !== undefined && /^\d{1,6}$/.test(v) ? Number(v) : undefined);
  const page = int(query.page);
  return {
    fact: query.fact && query.fact.length <= 64 ? query.fact : undefined,
    ev: int(query.ev),
    page: page !== undefined && page >= 1 ? page - 1 : undefined,
    zoom: parseZoom(query.zoom),
    notice: query.notice,
  };
}

function linksFor(caseId: string): ViewerLinks {
  return {
    href(sel) {
      const p = new URLSearchParams();
      if (sel.fact) p.set('fact', sel.fact);
      if (sel.ev) p.set('ev', String(sel.ev));
      if (sel.page !== undefined) p.set('page', String(sel.page + 1));
      if (sel.zoom && sel.zoom !== 100) p.set('zoom', String(sel.zoom));
      const s = p.toString();
      return `/dashboard/cases/${caseId}${s ? `?${s}` : ''}`;
    },
  };
}

function casePage(request: FastifyRequest, deps: DashboardRouteDeps, c: ConsoleCase, sel: Selection, form: CaseFormState) {
  const viewer = viewerOf(request, deps);
  const r = c.record;
  const links = linksFor(r.case_id);
  const errors: ErrorItem[] = [...(form.correction?.errors ?? []), ...(form.decision?.errors ?? [])];
  const title = r.external_case_id ? `Case ${r.external_case_id}` : `Case ${r.case_id}`;
  return dashboardPage({
    viewer,
    title,
    nav: 'cases',
    errors,
    children: html`<p class="breadcrumbs"><a href="/dashboard/cases">Cases</a></p>
      <div class="page-header">
        <div>
          <h1>${title}</h1>
          <p class="muted small mono">${r.case_id}</p>
        </div>
      </div>
      ${noticeBanner(sel.notice)}
      ${caseStatusLine(c)}
      <div class="review">
        <div class="review__facts">${factList(viewer, c, c.evidence?.fact.fact_id, links, sel.zoom, form)}</div>
        <div class="review__viewer">${decisionSection(viewer, c, form.decision)}${evidenceViewer(r.case_id, c.evidence, sel.zoom, links)}</div>
      </div>
      ${applicantAnswersSection(c)}
      <details class="card case-details"><summary class="card__title">Case details</summary>${caseHeader(c, deps.ctx.clock.now())}</details>
      ${documentsSection(viewer, c)}
      ${timelineSection(c)}`,
  });
}

/** "Reject this case?" on a page of ours, with the reason, instead of the browser's confirm(). */
function rejectConfirmation(request: FastifyRequest, deps: DashboardRouteDeps, c: ConsoleCase, reason: string) {
  const viewer = viewerOf(request, deps);
  return dashboardPage({ viewer, title: 'Reject this case?', nav: 'cases', children: rejectConfirmationBody(viewer, c, reason) });
}

async function showCase(request: FastifyRequest, reply: FastifyReply, deps: DashboardRouteDeps, caseId: string, sel: Selection, form: CaseFormState, status = 200) {
  const c = unwrap(await readConsoleCase(deps.ctx, { tenant: tenantOf(request), caseId, selection: { factId: sel.fact, evidenceIndex: sel.ev, pageIndex: sel.page } }));
  return sendPage(reply, casePage(request, deps, c, sel, form), status);
}

function cause(request: FastifyRequest) {
  return { traceId: String(request.id), idempotencyKey: null };
}

/** The case page and the operator's actions on it: correct a fact, decide, erase, package and case file. */
export function registerCasePage(scope: FastifyInstance, deps: DashboardRouteDeps): void {
  const { ctx } = deps;
  registerEvidenceRoutes(scope, deps);

  scope.get('/cases/:case_id', { config: { auth: 'operator' } }, async (request, reply) =>
    showCase(request, reply, deps, caseIdOf(request), selectionOf(request.query as Record<string, string | undefined>), {}),
  );

  scope.post('/cases/:case_id/facts/:fact_id', { config: { auth: 'operator' } }, async (request, reply) => {
    const parsed = factParams.safeParse(request.params);
    if (!parsed.success) throw new AppError('not_found', 'No such fact.');
    const { case_id: caseId, fact_id: factId } = parsed.data;
    const value = formField(request.body, 'value').trim();
    const reason = formField(request.body, 'reason').trim();
    const errors: ErrorItem[] = [];
    if (value === '') errors.push({ href: `value-${factId}`, text: 'Enter the correct value' });
    else if (value.length > MAX_TEXT) errors.push({ href: `value-${factId}`, text: `The value must be ${MAX_TEXT} characters or fewer` });
    if (reason === '') errors.push({ href: `reason-${factId}`, text: 'Enter the reason for the correction' });
    else if (reason.length > MAX_TEXT) errors.push({ href: `reason-${factId}`, text: `The reason must be ${MAX_TEXT} characters or fewer` });
    const sel = { ...selectionOf({}), fact: factId };
    if (errors.length > 0) return showCase(request, reply, deps, caseId, sel, { correction: { factId, value, reason, errors } }, 400);
    const done = await correctFact(ctx, { tenant: tenantOf(request), caseId, factId, value, reason, actor: operatorSessionOf(request).operator.operator_id, cause: cause(request) });
    if (!done.ok) {
      if (done.code !== 'invalid_request') throw AppError.from(done);
      return showCase(request, reply, deps, caseId, sel, { correction: { factId, value, reason, errors: [{ href: `value-${factId}`, text: done.message }] } }, 400);
    }
    return reply.redirect(`/dashboard/cases/${caseId}?fact=${encodeURIComponent(factId)}&notice=corrected#fact-${factId}`, 303);
  });

  scope.post('/cases/:case_id/decision', { config: { auth: 'operator' } }, async (request, reply) => {
    const caseId = caseIdOf(request);
    const decision = formField(request.body, 'decision');
    const reason = formField(request.body, 'reason').trim();
    if (decision !== 'approve' && decision !== 'reject') throw new AppError('invalid_request', 'Choose Approve or Reject.');
    // Approving needs no reason (it is optional in the API too); rejecting needs one, and is
    // confirmed on a page of ours before anything happens (issue 27 §4).
    const errors: ErrorItem[] = [];
    if (decision === 'reject' && reason === '') errors.push({ href: 'decision-reason', text: 'Enter the reason you reject this case' });
    else if (reason.length > MAX_TEXT) errors.push({ href: 'decision-reason', text: `The reason must be ${MAX_TEXT} characters or fewer` });
    if (errors.length > 0) return showCase(request, reply, deps, caseId, selectionOf({}), { decision: { reason, errors } }, 400);
    if (decision === 'reject' && formField(request.body, 'confirmed') !== 'yes') {
      const c = unwrap(await readConsoleCase(ctx, { tenant: tenantOf(request), caseId, selection: {} }));
      return sendPage(reply, rejectConfirmation(request, deps, c, reason));
    }
    const done = await decideCase(ctx, { tenant: tenantOf(request), caseId, decision, reason: reason === '' ? null : reason, actor: operatorSessionOf(request).operator.operator_id, cause: cause(request) });
    if (!done.ok) {
      if (done.code !== 'invalid_request') throw AppError.from(done);
      return showCase(request, reply, deps, caseId, selectionOf({}), { decision: { reason, errors: [{ href: 'decision-reason', text: done.message }] } }, 409);
    }
    // The operator's own decision is in the Done tab's count when they go back to the queue.
    deps.doneCounts.forget(tenantOf(request));
    return reply.redirect(`/dashboard/cases/${caseId}?notice=${done.value.case_status}`, 303);
  });

  // Erasure destroys evidence for good: admins only, as the API asks for the `cases:erase` scope
  // that only an admin can put on a key (issue 23 §6; the role table is in docs/decisions.md).
  scope.get('/cases/:case_id/erasure', { config: { auth: 'admin' } }, async (request, reply) => {
    const caseId = caseIdOf(request);
    const docId = (request.query as Record<string, string | undefined>).doc;
    const c = unwrap(await readConsoleCase(ctx, { tenant: tenantOf(request), caseId, selection: {} }));
    const docs = c.record.workspace.documents.filter((d) => d.status !== 'erased' && (docId === undefined || d.doc_id === docId));
    if (docId !== undefined && docs.length === 0) throw new AppError('not_found', `Case ${caseId} has no document ${docId} left to erase.`);
    const derived = c.record.workspace.facts.filter((f) => f.evidence.some((e) => docs.some((d) => d.doc_id === e.doc_id)) || f.provenance.some((p) => docs.some((d) => d.doc_id === p.document_id)));
    const whole = docId === undefined;
    const title = whole ? 'Erase every document of this case?' : `Erase ${docs[0]!.filename ?? docs[0]!.doc_id}?`;
    return sendPage(
      reply,
      dashboardPage({
        viewer: viewerOf(request, deps),
        title,
        nav: 'cases',
        children: html`${backLink(`/dashboard/cases/${caseId}`, 'Back to the case')}
          <h1>${title}</h1>
          <div class="card">
            <p>This cannot be undone. These will be destroyed:</p>
            <ul>
              ${docs.length === 0 ? html`<li>Nothing: every document is already erased.</li>` : null}
              ${docs.map((d) => html`<li>The file <strong>${d.filename ?? d.doc_id}</strong> (${d.document_kind ?? 'document'}, <span class="mono">${d.doc_id}</span>), its page text and page images</li>`)}
              ${derived.length > 0 ? html`<li>The values, quotes and evidence of: ${derived.map((f, i) => html`${i > 0 ? ', ' : ''}<strong>${f.fact_label}</strong>`)}</li>` : null}
            </ul>
            <p>Ids, statuses, timestamps and the case’s events remain, and the timeline records that you erased them.</p>
            <form method="post" action=${`/dashboard/cases/${caseId}/erasure`}>
              ${csrfField(viewerOf(request, deps))}
              ${whole ? null : hiddenInput('doc', docId)}
              <div class="button-group">
                ${button({ text: whole ? 'Erase every document' : 'Erase this document', variant: 'warning', data: { 'prevent-double-submit': '' } })}
                <a href=${`/dashboard/cases/${caseId}`}>Cancel</a>
              </div>
            </form>
          </div>`,
      }),
    );
  });

  scope.post('/cases/:case_id/erasure', { config: { auth: 'admin' } }, async (request, reply) => {
    const caseId = caseIdOf(request);
    const docId = formField(request.body, 'doc');
    const actor = operatorSessionOf(request).operator.operator_id;
    if (docId) unwrap(await eraseDocument(ctx, { tenant: tenantOf(request), caseId, docId, actor, cause: cause(request) }));
    else unwrap(await eraseCase(ctx, { tenant: tenantOf(request), caseId, actor, cause: cause(request) }));
    return reply.redirect(`/dashboard/cases/${caseId}?notice=erased`, 303);
  });

  scope.get('/cases/:case_id/package', { config: { auth: 'operator' } }, async (request, reply) => {
    const pkg = unwrap(await readConsolePackage(ctx, { tenant: tenantOf(request), caseId: caseIdOf(request) }));
    return reply.header('cache-control', 'private, no-store').type('application/json; charset=utf-8').send(JSON.stringify(pkg, null, 2));
  });

  scope.get('/cases/:case_id/case-file', { config: { auth: 'operator' } }, async (request, reply) => {
    const caseId = caseIdOf(request);
    const pdf = unwrap(await renderConsoleCaseFile(ctx, { tenant: tenantOf(request), caseId }));
    return reply
      .header('cache-control', 'private, no-store')
      .header('content-disposition', `inline; filename="case-${caseId}.pdf"`)
      .type('application/pdf')
      .send(Buffer.from(pdf));
  });
}
