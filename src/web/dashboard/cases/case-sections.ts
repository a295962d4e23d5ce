import { originalEvidenceOf, type ConsoleCase, type ConsoleFact, type CorrectionView, type TimelineEvent } from '../../../domain/console/case-view.ts';
import { html } from '../../render.ts';
import { valueForPeople } from '../value-text.ts';
import { button, details, notification, summaryList, table, tag } from '../../ui/components.ts';
import { hiddenInput, textarea, textInput } from '../../ui/fields.ts';
import type { ErrorItem } from '../../ui/components.ts';
import type { DashboardViewer } from '../context.ts';
import { csrfField } from '../layout.ts';
import { documentFileUrl, type ViewerLinks, type Zoom } from './evidence-viewer.ts';
import { CATEGORY_TABS, caseStatusTone, FACT_STATUS, humanize, RUNTIME_STATUS_TEXT, timeText } from './format.ts';
import type { QueueCategory } from '../../../domain/cases/queue.ts';
import { handoffValue } from './handoff.ts';
import { documentFailureInWords, reasonInWords } from './reason-words.ts';

/** What an operator typed into a form that came back with errors: shown again, kept. */
export interface CaseFormState {
  correction?: { factId: string; value: string; reason: string; errors: ErrorItem[] };
  decision?: { reason: string; errors: ErrorItem[] };
}

export function caseHeader(viewer: DashboardViewer, c: ConsoleCase, now: Date) {
  const r = c.record;
  const session = r.workspace.intake_session;
  const handoff = r.handoff;
  const rows = [
    { key: 'Runtime status', value: tag(RUNTIME_STATUS_TEXT[r.runtime_status], r.runtime_status === 'ready_for_review' ? 'info' : r.runtime_status === 'complete' ? 'success' : 'neutral') },
    { key: 'Case status', value: r.case_status ? tag(humanize(r.case_status), caseStatusTone(r.case_status)) : html`<span class="muted">Not decided</span>` },
    { key: 'Why here', value: r.queue_row.why_here },
    { key: 'Operating mode', value: r.operating_mode === 'system_of_action' ? 'System of action (operators decide here)' : 'System of record (your system decides)' },
    { key: 'Case type', value: html`<span class="mono">${r.case_type_id}</span> <span class="muted">(workflow ${r.workflow_version})</span>` },
    ...([
      ['Your case id', r.external_case_id],
      ['Applicant id', r.external_applicant_id],
      ['Customer id', r.external_customer_id],
    ] as const)
      .filter(([, v]) => v !== null)
      .map(([key, v]) => ({ key, value: html`<span class="mono">${v}</span>` })),
    ...(handoff
      ? [
          {
            key: 'Handoff',
            value: handoffValue(viewer, handoff, c.handoffDelivery),
          },
        ]
      : // Shown before it starts too, so an operator knows what a decision will set off.
        [{ key: 'Handoff', value: html`<span class="muted">Not started: it starts when the case completes</span>` }]),
    ...(session
      ? [
          {
            key: 'Intake session',
            value: html`${humanize(session.status)} · ${new Date(session.expires_at) > now ? 'expires' : 'expired'} ${timeText(session.expires_at)}${session.submitted_at ? ` · submitted ${timeText(session.submitted_at)}` : ''}`,
          },
        ]
      : []),
    { key: 'Created', value: timeText(r.created_at) },
  ];
  return summaryList(rows);
}

/** Verification records as readable lines ("Rule: name_matches · Result: mismatch …"), not raw JSON. */
/** A fact's value as a person reads it (value-text.ts), from the quote of its first evidence. */
function shownValue(f: ConsoleFact): string {
  return valueForPeople(f.value, (f.evidence[0] as { quote?: unknown } | undefined)?.quote);
}

/** How well the label matched, in words: "Exact match", or "Close match, 0.86". */
function matchWords(quality: number): string {
  return quality >= 0.995 ? 'Exact match' : `Close match, ${quality.toFixed(2)}`;
}

/** A verification record as one sentence; its rule ids and methods stay in the details below it. */
function verificationSentence(item: unknown): string {
  if (item === null || typeof item !== 'object') return String(item);
  const v = item as Record<string, unknown>;
  const verdict = v.result === 'match' ? 'matches' : v.result === 'mismatch' ? 'does not match' : 'was compared with';
  if (v.type === 'matches_input') {
    const answer = typeof v.input_value_normalized === 'string' ? `: “${v.input_value_normalized}”` : '';
    return `The value ${verdict} the applicant’s answer${typeof v.field_id === 'string' ? ` (${humanize(v.field_id).toLowerCase()})` : ''}${answer}.`;
  }
  return `Checked${typeof v.rule_id === 'string' ? ` by ${humanize(v.rule_id).toLowerCase()}` : ''}${typeof v.result === 'string' ? `: ${humanize(v.result).toLowerCase()}` : ''}.`;
}

function verificationList(items: readonly unknown[]) {
  return html`<ul class="verification">${items.map((item) => {
    if (item === null || typeof item !== 'object') return html`<li>${String(item)}</li>`;
    const entries = Object.entries(item as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined && v !== '');
    return html`<li>${entries.map(([k, v], i) => html`${i > 0 ? ' · ' : ''}<span class="muted">${humanize(k)}:</span> ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)}</li>`;
  })}</ul>`;
}

function correctionHistory(history: readonly CorrectionView[]) {
  if (history.length === 0) return null;
  return html`<div class="fact__history">
    <h4 class="small">Correction history</h4>
    <ol class="history">
      ${history.map(
        (h) => html`<li>
          <span class="small">${timeText(h.at)} by <strong>${h.actorLabel}</strong>:</span>
          ${h.previousValue === null ? html`<span class="muted">(no value${h.previousSource === 'document_extraction' ? ' kept' : ''})</span>` : html`<del><span class="visually-hidden">was </span>${h.previousValue}</del>`}
          → <ins><span class="visually-hidden">now </span>${h.newValue ?? '(cleared)'}</ins>
          ${h.reason ? html`<span class="small"> Reason: ${h.reason}</span>` : null}
        </li>`,
      )}
    </ol>
  </div>`;
}

function correctionForm(viewer: DashboardViewer, caseId: string, f: ConsoleFact, state: CaseFormState['correction'], closed: boolean) {
  if (closed) return null;
  const mine = state?.factId === f.fact_id ? state : undefined;
  const valueId = `value-${f.fact_id}`;
  const reasonId = `reason-${f.fact_id}`;
  return details(
    `Correct ${f.fact_label}`,
    html`<form method="post" action=${`/dashboard/cases/${caseId}/facts/${f.fact_id}`} novalidate>
      ${csrfField(viewer)}
      ${textInput({ id: valueId, name: 'value', label: 'Correct value', value: mine?.value ?? f.value ?? '', error: mine?.errors.find((e) => e.href === valueId)?.text })}
      ${textarea({ id: reasonId, name: 'reason', label: 'Reason for the correction', hint: 'Kept with the fact’s history.', rows: 2, value: mine?.reason ?? '', error: mine?.errors.find((e) => e.href === reasonId)?.text })}
      ${button({ text: 'Save correction', data: { 'prevent-double-submit': '' } })}
    </form>`,
    mine !== undefined,
  );
}

export function factList(viewer: DashboardViewer, c: ConsoleCase, selected: string | undefined, links: ViewerLinks, zoom: Zoom, form: CaseFormState) {
  const blocking = new Set(c.record.workspace.operational_summary.blocking_fact_ids);
  const flagged = new Set(c.flaggedFactIds);
  const closed = c.record.runtime_status === 'complete';
  return html`<section class="card facts" aria-labelledby="facts-title">
    <h2 id="facts-title" class="card__title">Facts</h2>
    ${flagged.size > 0 ? html`<p class="small muted">${flagged.size} flagged fact${flagged.size === 1 ? '' : 's'} first. Keys <kbd>j</kbd> and <kbd>k</kbd> move to the next and previous one.</p>` : null}
    <ol class="fact-list">
      ${c.record.workspace.facts.map((f) => {
        const status = FACT_STATUS[f.status];
        const isSelected = f.fact_id === selected;
        return html`<li class=${`fact${isSelected ? ' fact--selected' : ''}${flagged.has(f.fact_id) ? ' fact--flagged' : ''}`} id=${`fact-${f.fact_id}`} data-flagged=${flagged.has(f.fact_id) ? '' : undefined} tabindex="-1">
          <div class="fact__head">
            <h3 class="fact__label">${f.fact_label}</h3>
            ${tag(status.text, status.tone)}
            ${blocking.has(f.fact_id) ? tag('Blocking', 'danger') : null}
          </div>
          <dl class="fact__meta">
            <div><dt>Value</dt><dd class=${f.value === null ? 'muted' : 'fact__value'} title=${f.value !== null && shownValue(f) !== f.value ? `Stored as ${f.value}` : undefined}>${shownValue(f)}</dd></div>
            ${f.source ? html`<div><dt>Source</dt><dd>${humanize(f.source)}</dd></div>` : null}
            ${f.anchor_match_quality !== null ? html`<div><dt>Match</dt><dd>${matchWords(f.anchor_match_quality)}</dd></div>` : null}
            ${f.reason_codes.length > 0 ? html`<div class="fact__notes"><dt>Notes</dt><dd>${f.reason_codes.map((r) => html`<p class="small">${reasonInWords(r)}</p>`)}${details('Reason codes', html`<p class="small">${f.reason_codes.map((r) => html`<code class="code-chip">${r}</code> `)}</p>`)}</dd></div>` : null}
            ${f.verification_metadata.length > 0 ? html`<div class="fact__verification"><dt>Check</dt><dd>${f.verification_metadata.map((item) => html`<p class="small">${verificationSentence(item)}</p>`)}${details('Check details', verificationList(f.verification_metadata))}</dd></div>` : null}
          </dl>
          ${f.evidence.length > 0 || originalEvidenceOf(f, c.corrections[f.fact_id])
            ? html`<a class="fact__show" href=${`${links.href({ fact: f.fact_id, zoom })}#evidence`} aria-current=${isSelected ? 'true' : undefined} data-fact-link="">${isSelected ? 'Showing evidence' : f.evidence.length > 0 ? 'Show evidence' : 'Show original evidence'}<span class="visually-hidden"> for ${f.fact_label}</span></a>`
            : html`<p class="small muted">No document evidence.</p>`}
          ${typedBeside(c, f)}
          ${applicantChange(c, f)}
          ${correctionHistory(c.corrections[f.fact_id] ?? [])}
          ${correctionForm(viewer, c.record.case_id, f, form.correction, closed)}
        </li>`;
      })}
    </ol>
  </section>`;
}

/** An answer as text: an address's parts on one line, anything else as it was given. */
function answerText(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'object') return Object.values(v as Record<string, unknown>).filter((x) => x !== null && x !== '').map(String).join(', ');
  return String(v);
}

/** "Typed: Jane Doe · On the document: Jane Doe · Match" for a fact compared with one of the applicant's answers. */
function typedBeside(c: ConsoleCase, f: ConsoleFact) {
  const check = f.verification_metadata.find((m): m is Record<string, unknown> => m !== null && typeof m === 'object' && typeof (m as Record<string, unknown>).field_id === 'string');
  if (!check) return null;
  const typed = c.record.workspace.structured_inputs[check.field_id as string];
  const verdict = check.result === 'match' ? 'Match' : check.result === 'mismatch' ? 'No match' : null;
  return html`<p class="small fact__typed" data-typed-beside="">Typed: <strong>${answerText(typed)}</strong> · On the document: <strong>${f.value ?? '—'}</strong>${verdict ? html` · ${verdict === 'Match' ? tag(verdict, 'success') : tag(verdict, 'danger')}` : null}</p>`;
}

/** The applicant's own answers, which the facts were compared with: shown, not only sent to the API. */
export function applicantAnswersSection(c: ConsoleCase) {
  const answers = Object.entries(c.record.workspace.structured_inputs);
  if (answers.length === 0) return null;
  return html`<section class="card" aria-labelledby="answers-title">
    <h2 id="answers-title" class="card__title">The applicant’s answers</h2>
    ${summaryList(answers.map(([key, value]) => ({ key: humanize(key), value: answerText(value) })))}
  </section>`;
}

/** "Changed by the applicant: X → Y" on a fact the applicant corrected on the confirm page (issue 26). */
function applicantChange(c: ConsoleCase, f: ConsoleCase['record']['workspace']['facts'][number]) {
  if (f.corrected_by !== 'applicant') return null;
  const last = [...(c.corrections[f.fact_id] ?? [])].reverse().find((x) => x.actor === 'applicant');
  return html`<p class="small" data-applicant-change="">Changed by the applicant: <span class="mono">${last?.previousValue ?? '—'}</span> → <span class="mono">${last?.newValue ?? f.value ?? '—'}</span></p>`;
}

/** Who has the case, and the button to take it or give it back (issue 27 §3). Not on a completed case. */
function assignmentLine(viewer: DashboardViewer, c: ConsoleCase) {
  const r = c.record;
  if (r.runtime_status === 'complete') return c.assignee ? html`<p class="small muted">Was assigned to ${c.assignee.label}.</p>` : null;
  const mine = c.assignee?.operatorId === viewer.operatorId;
  const action = (assign: 'me' | 'nobody', text: string, variant: 'secondary' | 'primary' = 'secondary') => html`<form method="post" action=${`/dashboard/cases/${r.case_id}/assignment`} class="inline-form">
      ${csrfField(viewer)}<input type="hidden" name="assign" value=${assign} />
      ${button({ text, variant, size: 'small' })}
    </form>`;
  return html`<div class="assignment cluster" data-assignment="">
    <p class="small">${c.assignee ? html`Assigned to <strong>${mine ? 'you' : c.assignee.label}</strong>` : html`<span class="muted">Nobody has taken this case.</span>`}</p>
    ${mine ? action('nobody', 'Unassign') : action('me', 'Assign to me')}
  </div>`;
}

/** After a decision: the next oldest case of the tab the case was in, also reached with `n`. */
function nextCaseLink(c: ConsoleCase, from: QueueCategory | undefined) {
  if (!from) return null;
  return html`<p><a class="button" href=${`/dashboard/cases/next?category=${from}&after=${encodeURIComponent(c.record.case_id)}`} data-next-case="" aria-keyshortcuts="n">Next case<span class="visually-hidden"> in ${CATEGORY_TABS.find((t) => t.category === from)?.text ?? from}</span></a>
    <span class="small muted"> or press <kbd>n</kbd></span></p>`;
}

export function decisionSection(viewer: DashboardViewer, c: ConsoleCase, form: CaseFormState['decision'], from?: QueueCategory) {
  const r = c.record;
  if (r.runtime_status !== 'ready_for_review') {
    return html`<section class="card" aria-labelledby="decide-title">
      <h2 id="decide-title" class="card__title">Decision</h2>
      <p>${r.runtime_status === 'complete' ? html`This case is complete: ${r.case_status ? humanize(r.case_status).toLowerCase() : 'no status'}.` : `This case is not awaiting review yet (${RUNTIME_STATUS_TEXT[r.runtime_status].toLowerCase()}).`}</p>
      ${assignmentLine(viewer, c)}
      ${r.runtime_status === 'complete' ? nextCaseLink(c, from) : null}
    </section>`;
  }
  const reasonError = form?.errors.find((e) => e.href === 'decision-reason')?.text;
  return html`<section class="card decision" aria-labelledby="decide-title">
    <h2 id="decide-title" class="card__title">Decision</h2>
    ${assignmentLine(viewer, c)}
    <form method="post" action=${`/dashboard/cases/${r.case_id}/decision`} novalidate>
      ${csrfField(viewer)}
      <input type="hidden" name="from" value=${r.queue_row.queue_category} />
      ${textarea({ id: 'decision-reason', name: 'reason', label: 'Reason (optional to approve, needed to reject)', hint: 'Kept with the case and printed in the case file.', rows: 2, value: form?.reason ?? '', error: reasonError })}
      <div class="button-group">
        ${button({ text: 'Approve', name: 'decision', value: 'approve', data: { 'prevent-double-submit': '' } })}
        ${button({ text: 'Reject', name: 'decision', value: 'reject', variant: 'warning' })}
      </div>
      <p class="small muted">Either completes the case and sends <code>v1.case.completed</code>, which starts the handoff.</p>
    </form>
  </section>`;
}

/** The status and why the case is here, in words, with what blocks it: the first thing an operator reads. */
export function caseStatusLine(c: ConsoleCase) {
  const r = c.record;
  const blockingIds = new Set(r.workspace.operational_summary.blocking_fact_ids);
  const blocking = r.workspace.facts.filter((f) => blockingIds.has(f.fact_id));
  const decided = [...c.timeline].reverse().find((e) => e.eventType === 'case.decided');
  const reason = c.decisionReason;
  return html`<section class="card case-status" aria-labelledby="status-title">
    <h2 id="status-title" class="visually-hidden">Status</h2>
    <p>${tag(RUNTIME_STATUS_TEXT[r.runtime_status], r.runtime_status === 'ready_for_review' ? 'info' : r.runtime_status === 'complete' ? 'success' : 'neutral')}
      ${r.case_status ? html` ${tag(humanize(r.case_status), caseStatusTone(r.case_status))}` : null}
      <span> ${r.queue_row.why_here}</span></p>
    ${reason ? html`<p class="small">Reason given${decided?.actorLabel ? ` by ${decided.actorLabel}` : ''}: ${reason}</p>` : null}
    ${blocking.length > 0 ? html`<p class="small"><strong>Blocking:</strong> ${blocking.map((f) => f.fact_label).join(', ')}</p>` : null}
  </section>`;
}

/** The body of the reject confirmation page: the reason as given, Reject, or back to the case. */
export function rejectConfirmationBody(viewer: DashboardViewer, c: ConsoleCase, reason: string, from = '') {
  const r = c.record;
  return html`<p class="breadcrumbs"><a href=${`/dashboard/cases/${r.case_id}`}>Back to the case</a></p>
    <div class="page-header"><h1>Reject this case?</h1></div>
    <section class="card">
      <p>Rejecting completes case <span class="mono">${r.external_case_id ?? r.case_id}</span> and sends <code>v1.case.completed</code> with <code>case_status: rejected</code>. It cannot be undone here.</p>
      <p><strong>Reason:</strong> ${reason}</p>
      <form method="post" action=${`/dashboard/cases/${r.case_id}/decision`} novalidate>
        ${csrfField(viewer)}
        <input type="hidden" name="decision" value="reject" />
        <input type="hidden" name="reason" value=${reason} />
        <input type="hidden" name="confirmed" value="yes" />
        ${from ? html`<input type="hidden" name="from" value=${from} />` : null}
        <div class="button-group">
          ${button({ text: 'Reject', variant: 'warning', data: { 'prevent-double-submit': '' } })}
          <a href=${`/dashboard/cases/${r.case_id}`}>Cancel</a>
        </div>
      </form>
    </section>`;
}

/** The documents of the case. Erasure is for admins (issue 23 §6), so a reviewer sees no Erase link. */
export function documentsSection(viewer: DashboardViewer, c: ConsoleCase) {
  const r = c.record;
  const docs = r.workspace.documents;
  const mayErase = viewer.role === 'admin';
  return html`<section class="card" aria-labelledby="documents-title">
    <h2 id="documents-title" class="card__title">Documents</h2>
    ${table<(typeof docs)[number]>({
      stack: true,
      caption: 'Documents of this case',
      captionHidden: true,
      rows: docs,
      empty: 'No documents yet.',
      columns: [
        // The document's id stays out of sight (a tooltip, the package, the links); its kind in words.
        { header: 'Document', rowHeader: true, cell: (d) => html`<span title=${d.doc_id}>${d.filename ?? html`<span class="muted">(no name)</span>`}</span><br /><span class="small muted">${d.document_kind ? humanize(d.document_kind) : 'Kind not given'}</span>` },
        { header: 'Status', cell: (d) => tag(humanize(d.status), d.status === 'processed' ? 'success' : d.status === 'failed' ? 'danger' : d.status === 'erased' ? 'neutral' : 'info') },
        { header: 'Failure reason', cell: (d) => (d.failure_reason ? html`<span title=${d.failure_reason}>${documentFailureInWords(d.failure_reason)}</span>` : html`<span class="muted">None</span>`) },
        { header: 'Pages', numeric: true, cell: (d) => (d.page_count === null ? '' : String(d.page_count)) },
        {
          header: 'Actions',
          cell: (d) =>
            d.status === 'erased'
              ? html`<span class="muted small">Erased</span>`
              : html`<div class="cluster small">
                  <a href=${documentFileUrl(r.case_id, d.doc_id)} download="">Download<span class="visually-hidden"> ${d.filename ?? d.doc_id}</span></a>
                  ${mayErase ? html`<a href=${`/dashboard/cases/${r.case_id}/erasure?doc=${d.doc_id}`}>Erase<span class="visually-hidden"> ${d.filename ?? d.doc_id}</span></a>` : null}
                </div>`,
        },
      ],
    })}
    <p class="cluster">
      <a href=${`/dashboard/cases/${r.case_id}/package`}>Case package (JSON)</a>
      <a href=${`/dashboard/cases/${r.case_id}/case-file`}>Sealed case file (PDF)</a>
      ${mayErase && docs.some((d) => d.status !== 'erased') ? html`<a href=${`/dashboard/cases/${r.case_id}/erasure`}>Erase the whole case</a>` : null}
    </p>
  </section>`;
}

function eventSummary(e: TimelineEvent): string {
  const d = e.data;
  const bits: string[] = [];
  if (typeof d.decision === 'string') bits.push(`decision: ${d.decision}`);
  if (typeof d.case_status === 'string') bits.push(`status: ${d.case_status}`);
  if (typeof d.fact_id === 'string') bits.push(`fact: ${d.fact_id}`);
  if (typeof d.doc_id === 'string') bits.push(`document: ${d.doc_id}`);
  if (typeof d.status === 'string' && typeof d.fact_id === 'string') bits.push(`now ${d.status}`);
  if (typeof d.reason === 'string') bits.push(`reason: ${d.reason}`);
  return bits.join(' · ');
}

const statusText = (v: unknown) => (typeof v === 'string' && v in RUNTIME_STATUS_TEXT ? RUNTIME_STATUS_TEXT[v as keyof typeof RUNTIME_STATUS_TEXT] : humanize(String(v ?? '')));

const EVENT_WORDS: Record<string, string> = {
  'case.created': 'Case created',
  'session.created': 'Intake link created',
  'session.expired': 'Intake link expired',
  'intake.answers_saved': 'The applicant saved answers',
  'intake.submitted': 'The applicant submitted',
  'intake.follow_up_answered': 'The applicant answered follow-up questions',
  'document.uploaded': 'Document added',
  'document.processing': 'Reading a document',
  'document.processed': 'Document read',
  'document.failed': 'A document could not be read',
  'document.erased': 'Document erased',
  'case.ready_for_review': 'Ready for review',
  'fact.corrected': 'Fact corrected',
  'case.assigned': 'Assigned',
};

/** One event in words for the operator ("Status: Processing → Ready for review"); the raw type stays in details. */
export function eventWords(e: TimelineEvent): string {
  const d = e.data;
  switch (e.eventType) {
    case 'case.status_changed':
      return `Status: ${statusText(d.from)} → ${statusText(d.to)}`;
    case 'case.decided':
      return d.decision === 'approve' ? 'Approved' : d.decision === 'reject' ? 'Rejected' : 'Decided';
    case 'case.completed':
      return `Completed: ${humanize(String(d.case_status ?? d.status ?? '')).toLowerCase() || 'done'}`;
    case 'case.assigned':
      return e.assigneeLabel && e.assigneeLabel === e.actorLabel ? 'Assigned to themselves' : `Assigned to ${e.assigneeLabel ?? 'an operator'}`;
    case 'case.unassigned':
      return 'Unassigned';
    default:
      return EVENT_WORDS[e.eventType] ?? humanize(e.eventType.replace(/[._]/g, ' '));
  }
}

/** Runs of the same words next to each other are one line with a count ("Document read ×3"). */
function groupedTimeline(events: readonly TimelineEvent[]) {
  const groups: { words: string; first: TimelineEvent; events: TimelineEvent[] }[] = [];
  for (const e of events) {
    const words = eventWords(e);
    const last = groups.at(-1);
    if (last && last.words === words && last.first.actorLabel === e.actorLabel && e.eventType !== 'case.status_changed') last.events.push(e);
    else groups.push({ words, first: e, events: [e] });
  }
  return groups;
}

export function timelineSection(c: ConsoleCase) {
  return html`<section class="card" aria-labelledby="timeline-title">
    <h2 id="timeline-title" class="card__title">Timeline</h2>
    <ol class="timeline">
      ${groupedTimeline(c.timeline).map(
        (g) => html`<li class="timeline__item">
          <span class="timeline__time small muted">${timeText(g.first.at)}</span>
          <span class="timeline__what">${g.words}${g.events.length > 1 ? html` <span class="muted">×${String(g.events.length)}</span>` : null}${g.first.actorLabel ? html` by <strong>${g.first.actorLabel}</strong>` : null}</span>
          <details class="timeline__raw small muted"><summary>Event details</summary>${g.events.map((e) => html`<div><code>${e.eventType}</code>${eventSummary(e) ? ` · ${eventSummary(e)}` : ''}</div>`)}</details>
        </li>`,
      )}
    </ol>
  </section>`;
}

export const NOTICES: Record<string, { tone: 'success' | 'info'; text: string }> = {
  approved: { tone: 'success', text: 'Case approved. It is complete and the handoff to your system has started.' },
  rejected: { tone: 'success', text: 'Case rejected. It is complete and the handoff to your system has started.' },
  corrected: { tone: 'success', text: 'Correction saved. The fact’s history shows it.' },
  assigned: { tone: 'success', text: 'You have taken this case. It shows as yours in the queue.' },
  unassigned: { tone: 'info', text: 'You gave this case back. It shows as unassigned in the queue.' },
  queue_empty: { tone: 'info', text: 'That was the last case of the tab for you.' },
  erased: { tone: 'info', text: 'Erased. The documents’ bytes, text, images and derived values are gone; ids, statuses and events remain.' },
};

export function noticeBanner(code: string | undefined) {
  const n = code ? NOTICES[code] : undefined;
  return n ? notification({ tone: n.tone, role: 'status', children: html`<p>${n.text}</p>` }) : null;
}

export { hiddenInput };
