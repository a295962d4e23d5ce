import { z } from 'zod';
import { readConsoleQueue, type ConsoleQueuePage, type ConsoleQueueRow } from '../../../domain/console/queue-page.ts';
import { QUEUE_CATEGORIES, type QueueCategory } from '../../../domain/cases/queue.ts';
import { RUNTIME_STATUSES } from '../../../domain/cases/state-machine.ts';
import type { RuntimeStatus } from '../../../domain/cases/case-state.ts';
import { unwrap } from '../../../domain/errors.ts';
import { html, sendPage } from '../../render.ts';
import { button, notification, table, tag } from '../../ui/components.ts';
import { hiddenInput, select, textInput } from '../../ui/fields.ts';
import { operatorSessionOf, tenantOf, viewerOf, type DashboardViewer } from '../context.ts';
import { dashboardPage } from '../layout.ts';
import { dashboardRoute } from '../route.ts';
import { queryText } from '../../page-route.ts';
import { ageText, CATEGORY_TABS, RUNTIME_STATUS_TEXT } from './format.ts';

export const QUEUE_PAGE_SIZE = 50;

interface QueueParams {
  /** 'all' shows every category. */
  category: QueueCategory | 'all';
  runtimeStatus: RuntimeStatus | undefined;
  caseTypeId: string | undefined;
  search: string | undefined;
  /** `mine`: the viewer's cases; `unassigned`: nobody's. */
  assignee: 'mine' | 'unassigned' | undefined;
  after: string | undefined;
}

/** Query parameters, read leniently: an unknown value is ignored rather than refused (links get edited by hand). */
export function parseQueueParams(query: Record<string, string | string[] | undefined>): QueueParams {
  const one = (k: string) => {
    const v = query[k];
    const s = (Array.isArray(v) ? v[0] : v)?.trim();
    return s ? s.slice(0, 200) : undefined;
  };
  const category = one('category');
  const status = one('status');
  const assigned = one('assigned');
  return {
    category: category === 'all' ? 'all' : (QUEUE_CATEGORIES as readonly string[]).includes(category ?? '') ? (category as QueueCategory) : one('q') ? 'all' : 'review',
    runtimeStatus: (RUNTIME_STATUSES as readonly string[]).includes(status ?? '') ? (status as RuntimeStatus) : undefined,
    caseTypeId: one('type'),
    search: one('q'),
    assignee: assigned === 'mine' || assigned === 'unassigned' ? assigned : undefined,
    after: one('after'),
  };
}

function queueHref(p: Partial<QueueParams>): string {
  const params = new URLSearchParams();
  if (p.category) params.set('category', p.category);
  if (p.runtimeStatus) params.set('status', p.runtimeStatus);
  if (p.caseTypeId) params.set('type', p.caseTypeId);
  if (p.search) params.set('q', p.search);
  if (p.assignee) params.set('assigned', p.assignee);
  if (p.after) params.set('after', p.after);
  const s = params.toString();
  return `/dashboard/cases${s ? `?${s}` : ''}`;
}

/**
 * A long id shown short (its head and tail, "case_seaK92…DUdS"), never wrapped mid-word: the whole
 * value is the title on hover and what a screen reader reads.
 */
export function shortId(id: string, keep = 14) {
  if (id.length <= keep + 2) return html`<span class="mono nowrap">${id}</span>`;
  const short = `${id.slice(0, keep - 4)}…${id.slice(-4)}`;
  return html`<span class="mono nowrap" title=${id}><span aria-hidden="true">${short}</span><span class="visually-hidden">${id}</span></span>`;
}

function idsCell(r: ConsoleQueueRow) {
  const ext = [
    ['Your case id', r.externalCaseId],
    ['Customer', r.externalCustomerId],
  ].filter((e): e is [string, string] => e[1] !== null);
  return html`<a href=${`/dashboard/cases/${r.caseId}`}>${shortId(r.caseId)}</a>
    ${ext.length > 0 ? html`<ul class="id-list">${ext.map(([k, v]) => html`<li><span class="muted">${k}:</span> ${shortId(v, 18)}</li>`)}</ul>` : null}`;
}

function applicantCell(r: ConsoleQueueRow) {
  if (r.applicantName) return html`${cellLabel('Applicant')}${r.applicantName}${r.externalApplicantId ? html`<div class="small muted">${shortId(r.externalApplicantId, 18)}</div>` : null}`;
  if (r.externalApplicantId) return html`${cellLabel('Applicant')}${shortId(r.externalApplicantId, 18)}`;
  return html`${cellLabel('Applicant')}<span class="muted">Not given</span>`;
}

function assigneeCell(r: ConsoleQueueRow, viewer: DashboardViewer) {
  if (!r.assignee) return html`${cellLabel('Assignee')}<span class="muted">Unassigned</span>`;
  return html`${cellLabel('Assignee')}${r.assignee.operatorId === viewer.operatorId ? 'You' : r.assignee.email}`;
}

/** On a phone the table stacks, one card per case; these labels (hidden elsewhere) name each value. Screen readers get the column headers instead. */
function cellLabel(text: string) {
  return html`<span class="cell-label" aria-hidden="true">${text}: </span>`;
}

function blockingCell(r: ConsoleQueueRow) {
  if (r.blockingItems.length === 0) return html`<span class="muted">None</span>`;
  return html`<ul class="blocking-list">${r.blockingItems.map((b) => html`<li>${b.why}</li>`)}</ul>`;
}

export function queueView(viewer: DashboardViewer, page: ConsoleQueuePage, params: QueueParams, now: Date, notice?: string) {
  const tabs = [...CATEGORY_TABS.map((t) => ({ key: t.category as QueueCategory | 'all', text: t.text, count: page.counts[t.category] })), { key: 'all' as const, text: 'All', count: page.total }];
  const heading = params.search ? `Cases matching “${params.search}”` : 'Cases';
  const rows = page.rows;
  return dashboardPage({
    viewer,
    title: heading,
    nav: 'cases',
    children: html`<div class="page-header"><h1>${heading}</h1></div>
      ${notice === 'queue_empty' ? notification({ tone: 'info', role: 'status', children: html`<p>No other case in this tab is waiting for you. Cases others have taken are not offered as the next case.</p>` }) : null}
      <nav aria-label="Queue categories">
        <ul class="tabs">
          ${tabs.map(
            (t) => html`<li><a href=${queueHref({ category: t.key })} aria-current=${!params.search && params.category === t.key ? 'page' : undefined}>
              ${t.text} <span class="tabs__count">${t.count}<span class="visually-hidden"> cases</span></span></a></li>`,
          )}
        </ul>
      </nav>
      <form method="get" action="/dashboard/cases" class="filters" role="search" aria-label="Search and filter cases">
        ${hiddenInput('category', params.category)}
        ${textInput({ id: 'q', name: 'q', label: 'Search cases', hint: 'An applicant’s name or email, a case id or any of your ids, or a value read from a document', type: 'search', value: params.search ?? '', spellcheck: false, autocomplete: 'off' })}
        ${select({
          id: 'status',
          name: 'status',
          label: 'Runtime status',
          value: params.runtimeStatus ?? '',
          placeholder: 'Any status',
          options: RUNTIME_STATUSES.map((s) => ({ value: s, text: RUNTIME_STATUS_TEXT[s] })),
        })}
        ${select({ id: 'type', name: 'type', label: 'Case type', value: params.caseTypeId ?? '', placeholder: 'Any case type', options: page.caseTypes.map((c) => ({ value: c.caseTypeId, text: c.name })) })}
        ${select({ id: 'assigned', name: 'assigned', label: 'Assignee', value: params.assignee ?? '', placeholder: 'Anyone', options: [{ value: 'mine', text: 'Mine' }, { value: 'unassigned', text: 'Unassigned' }] })}
        ${button({ text: 'Apply', variant: 'secondary' })}
        ${params.search || params.runtimeStatus || params.caseTypeId || params.assignee ? html`<a href=${queueHref({ category: params.category === 'all' && params.search ? 'review' : params.category })}>Clear</a>` : null}
      </form>
      <div class="card card--flush queue">
        ${table<ConsoleQueueRow>({
          caption: `${params.search ? 'Search results' : (tabs.find((t) => t.key === params.category)?.text ?? 'Cases')}, oldest first`,
          captionHidden: true,
          rows,
          empty: params.search ? `No case in this environment matches “${params.search}”.` : 'No cases here.',
          columns: [
            { header: 'Case', cell: idsCell, rowHeader: true },
            { header: 'Applicant', cell: applicantCell },
            { header: 'Case type', cell: (r) => html`${cellLabel('Case type')}${r.caseTypeName}` },
            { header: 'Status', cell: (r) => html`${cellLabel('Status')}${tag(RUNTIME_STATUS_TEXT[r.runtimeStatus], r.runtimeStatus === 'ready_for_review' ? 'info' : 'neutral')}` },
            { header: 'Why here', cell: (r) => html`${cellLabel('Why here')}${r.whyHere}` },
            { header: 'Blocking', cell: (r) => html`${cellLabel('Blocking')}${blockingCell(r)}` },
            { header: 'Assignee', cell: (r) => assigneeCell(r, viewer) },
            { header: 'Age', cell: (r) => html`${cellLabel('Age')}<span class="nowrap">${ageText(r.since, now)}</span>`, numeric: true },
          ],
        })}
      </div>
      <nav class="pagination" aria-label="Pages">
        ${params.after ? html`<a href=${queueHref({ ...params, after: undefined })}>First page</a>` : html`<span></span>`}
        ${page.nextCursor ? html`<a href=${queueHref({ ...params, after: page.nextCursor })}>Next page</a>` : null}
      </nav>`,
  });
}

/** GET /dashboard/cases: the queue, by category, with search, filters and keyset pages. */
export const queuePage = dashboardRoute({
  method: 'GET',
  url: '/cases',
  auth: 'operator',
  // Read leniently (see parseQueueParams): any text is taken, an unknown value ignored.
  query: z.object({ category: queryText, status: queryText, type: queryText, q: queryText, assigned: queryText, after: queryText, notice: queryText }),
  handler: async ({ request, reply, query, deps }) => {
    const params = parseQueueParams(query);
    const page = unwrap(
      await readConsoleQueue({ ...deps.ctx, doneCounts: deps.doneCounts }, {
        tenant: tenantOf(request),
        query: {
          // A search looks across every category: an id names one case wherever it is.
          category: params.category === 'all' || params.search ? undefined : params.category,
          runtimeStatus: params.runtimeStatus,
          caseTypeId: params.caseTypeId,
          search: params.search,
          assignee: params.assignee,
          after: params.after,
          limit: QUEUE_PAGE_SIZE,
        },
        viewerOperatorId: operatorSessionOf(request).operator.operator_id,
      }),
    );
    return sendPage(reply, queueView(viewerOf(request, deps), page, params, deps.ctx.clock.now(), query.notice));
  },
});
