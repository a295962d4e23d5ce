import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { readConsoleCase, type ConsoleCase } from '../../../domain/console/case-view.ts';
import { eraseCase, eraseDocument } from '../../../domain/erasure/erase.ts';
import { AppError, unwrap } from '../../../domain/errors.ts';
import { formText, queryText } from '../../page-route.ts';
import { html, sendPage } from '../../render.ts';
import { backLink, button } from '../../ui/components.ts';
import { hiddenInput } from '../../ui/fields.ts';
import { operatorSessionOf, tenantOf, viewerOf, type DashboardRouteDeps } from '../context.ts';
import { csrfField, dashboardPage } from '../layout.ts';
import { dashboardRoute } from '../route.ts';
import { caseParams, causeOf } from './case-page.ts';
import { humanize } from './format.ts';

/** What erasing destroys, named before the operator confirms: every document of the case left, or the one asked for. */
function erasureView(request: FastifyRequest, deps: DashboardRouteDeps, caseId: string, c: ConsoleCase, docs: ConsoleCase['record']['workspace']['documents'], docId: string | undefined) {
  const derived = c.record.workspace.facts.filter((f) => f.evidence.some((e) => docs.some((d) => d.doc_id === e.doc_id)) || f.provenance.some((p) => docs.some((d) => d.doc_id === p.document_id)));
  const whole = docId === undefined;
  const title = whole ? 'Erase every document of this case?' : `Erase ${docs[0]!.filename ?? docs[0]!.doc_id}?`;
  return dashboardPage({
    viewer: viewerOf(request, deps),
    title,
    nav: 'cases',
    children: html`${backLink(`/dashboard/cases/${caseId}`, 'Back to the case')}
      <h1>${title}</h1>
      <div class="card">
        <p>This cannot be undone. These will be destroyed:</p>
        <ul>
          ${docs.length === 0 ? html`<li>Nothing: every document is already erased.</li>` : null}
          ${docs.map((d) => html`<li>The file <strong title=${d.doc_id}>${d.filename ?? 'with no name'}</strong>${d.document_kind ? ` (${humanize(d.document_kind).toLowerCase()})` : ''}, its page text and page images</li>`)}
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
  });
}

// Erasure destroys evidence for good: admins only, as the API asks for the `cases:erase` scope
// that only an admin can put on a key (issue 23 §6; the role table is in docs/decisions.md).

/** GET /dashboard/cases/{case_id}/erasure[?doc=…]: what would be erased, and the button that does it. */
export const erasurePage = dashboardRoute({
  method: 'GET',
  url: '/cases/:case_id/erasure',
  auth: 'admin',
  params: caseParams,
  query: z.object({ doc: queryText }),
  handler: async ({ request, reply, params, query, deps }) => {
    const caseId = params.case_id;
    const docId = query.doc;
    const c = unwrap(await readConsoleCase(deps.ctx, { tenant: tenantOf(request), caseId, selection: {} }));
    const docs = c.record.workspace.documents.filter((d) => d.status !== 'erased' && (docId === undefined || d.doc_id === docId));
    if (docId !== undefined && docs.length === 0) throw new AppError('not_found', `Case ${caseId} has no document ${docId} left to erase.`);
    return sendPage(reply, erasureView(request, deps, caseId, c, docs, docId));
  },
});

/** POST /dashboard/cases/{case_id}/erasure: erases one document (`doc`) or every document of the case. */
export const erasurePost = dashboardRoute({
  method: 'POST',
  url: '/cases/:case_id/erasure',
  auth: 'admin',
  params: caseParams,
  body: z.object({ doc: formText }),
  handler: async ({ request, reply, params, body, deps }) => {
    const caseId = params.case_id;
    const docId = body.doc;
    const actor = operatorSessionOf(request).operator.operator_id;
    if (docId) unwrap(await eraseDocument(deps.ctx, { tenant: tenantOf(request), caseId, docId, actor, cause: causeOf(request) }));
    else unwrap(await eraseCase(deps.ctx, { tenant: tenantOf(request), caseId, actor, cause: causeOf(request) }));
    return reply.redirect(`/dashboard/cases/${caseId}?notice=erased`, 303);
  },
});
