import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { readConsoleCase, type ConsoleCase } from '../../../domain/console/case-view.ts';
import { QUEUE_CATEGORIES, type QueueCategory } from '../../../domain/cases/queue.ts';
import { unwrap } from '../../../domain/errors.ts';
import { queryText } from '../../page-route.ts';
import { html, sendPage } from '../../render.ts';
import type { ErrorItem } from '../../ui/components.ts';
import { tenantOf, viewerOf, type DashboardRouteDeps } from '../context.ts';
import { dashboardPage } from '../layout.ts';
import { dashboardRoute } from '../route.ts';
import { applicantAnswersSection, caseHeader, caseStatusLine, decisionSection, documentsSection, factList, noticeBanner, timelineSection, type CaseFormState } from './case-sections.ts';
import { evidenceViewer, parseZoom, type ViewerLinks, type Zoom } from './evidence-viewer.ts';

/** The address of a case: an id that could name one (else: no such page). */
export const caseParams = z.object({ case_id: z.string().min(1).max(100) });
/** The longest value or reason an operator may type. */
export const MAX_TEXT = 2000;

export interface Selection {
  fact: string | undefined;
  ev: number | undefined;
  page: number | undefined;
  zoom: Zoom;
  notice: string | undefined;
  /** The tab the operator decided the case from: the Next case link goes on in it. */
  from: QueueCategory | undefined;
}

/** What the case page shows, read leniently from its query: a value that names nothing is ignored. */
export function selectionOf(query: Record<string, string | undefined>): Selection {
  const int = (v: string | undefined) => (v !== undefined && /^\d{1,6}$/.test(v) ? Number(v) : undefined);
  const page = int(query.page);
  return {
    fact: query.fact && query.fact.length <= 64 ? query.fact : undefined,
    ev: int(query.ev),
    page: page !== undefined && page >= 1 ? page - 1 : undefined,
    zoom: parseZoom(query.zoom),
    notice: query.notice,
    from: (QUEUE_CATEGORIES as readonly string[]).includes(query.from ?? '') ? (query.from as QueueCategory) : undefined,
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

function casePageView(request: FastifyRequest, deps: DashboardRouteDeps, c: ConsoleCase, sel: Selection, form: CaseFormState) {
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
        <div class="review__viewer">${decisionSection(viewer, c, form.decision, sel.from)}${evidenceViewer(r.case_id, c.evidence, sel.zoom, links)}</div>
      </div>
      ${applicantAnswersSection(c)}
      <details class="card case-details"><summary class="card__title">Case details</summary>${caseHeader(viewer, c, deps.ctx.clock.now())}</details>
      ${documentsSection(viewer, c)}
      ${timelineSection(c)}`,
  });
}

/** The case page, with what a form on it was sent with and its problems when it is shown again. */
export async function showCase(request: FastifyRequest, reply: FastifyReply, deps: DashboardRouteDeps, caseId: string, sel: Selection, form: CaseFormState, status = 200) {
  const c = unwrap(await readConsoleCase(deps.ctx, { tenant: tenantOf(request), caseId, selection: { factId: sel.fact, evidenceIndex: sel.ev, pageIndex: sel.page } }));
  return sendPage(reply, casePageView(request, deps, c, sel, form), status);
}

/** What an operator's action on a case records as its cause: this request, with no idempotency key. */
export function causeOf(request: FastifyRequest) {
  return { traceId: String(request.id), idempotencyKey: null };
}

/** GET /dashboard/cases/{case_id}: the facts, the evidence viewer on the selected one, the decision, documents and timeline. */
export const casePage = dashboardRoute({
  method: 'GET',
  url: '/cases/:case_id',
  auth: 'operator',
  params: caseParams,
  query: z.object({ fact: queryText, ev: queryText, page: queryText, zoom: queryText, notice: queryText, from: queryText }),
  handler: async ({ request, reply, params, query, deps }) => showCase(request, reply, deps, params.case_id, selectionOf(query), {}),
});
