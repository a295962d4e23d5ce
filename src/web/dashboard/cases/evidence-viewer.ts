import type { EvidenceView } from '../../../domain/console/case-view.ts';
import { html } from '../../render.ts';
import { timeText } from './format.ts';

/** Zoom steps of the page image, in percent of the viewer's width (100: the page fills it). */
export const ZOOM_LEVELS = [50, 75, 100, 150, 200] as const;
export type Zoom = (typeof ZOOM_LEVELS)[number];

export function parseZoom(value: string | undefined): Zoom {
  const n = Number(value);
  return (ZOOM_LEVELS as readonly number[]).includes(n) ? (n as Zoom) : 100;
}

export interface ViewerLinks {
  /** The case page with a selection: used by every link of the viewer so it works without script. */
  href(sel: { fact?: string; ev?: number; page?: number; zoom?: Zoom }): string;
}

export function pageImageUrl(caseId: string, docId: string, pageIndex: number): string {
  return `/dashboard/cases/${caseId}/documents/${docId}/pages/${pageIndex + 1}`;
}

export function documentFileUrl(caseId: string, docId: string): string {
  return `/dashboard/cases/${caseId}/documents/${docId}/file`;
}

function pageTextView(ev: EvidenceView) {
  if (ev.pageText === undefined) return html`<p class="muted">This page has no stored text.</p>`;
  const text = ev.pageText;
  const label = `Text of page ${ev.pageIndex + 1}`;
  if (!ev.mark) return html`<pre class="page-text" tabindex="0" aria-label=${label}>${text}</pre>`;
  return html`<pre class="page-text" tabindex="0" aria-label=${label}>${text.slice(0, ev.mark.start)}<mark class="quote" id="quote">${text.slice(ev.mark.start, ev.mark.end)}</mark>${text.slice(ev.mark.end)}</pre>`;
}

/**
 * The evidence's outline, a little larger than the words it boxes so its stroke never runs over
 * them. Its fill is translucent and multiplied onto the page (dashboard.css): the value under it
 * stays readable. The presentation attributes say the same for a page without the stylesheet.
 */
function evidenceOutline(box: NonNullable<EvidenceView['box']>, page: { width: number; height: number }) {
  const pad = Math.max(2, Math.min(page.width, page.height) * 0.004);
  const x = Math.max(0, box.x - pad);
  const y = Math.max(0, box.y - pad);
  const width = Math.min(page.width - x, box.width + 2 * pad);
  const height = Math.min(page.height - y, box.height + 2 * pad);
  const r = (n: number) => Math.round(n * 100) / 100;
  return html`<rect class="evidence-box" x=${r(x)} y=${r(y)} width=${r(width)} height=${r(height)} fill="#ffd21f" fill-opacity="0.2" stroke="#b3261e" stroke-width="3" vector-effect="non-scaling-stroke" data-evidence-box="" />`;
}

function pageImageView(caseId: string, ev: EvidenceView, zoom: Zoom) {
  const image = ev.image;
  const doc = ev.document!;
  if (!image) return html`<p class="notification">There is no page image for this document (${doc.mime_type ?? 'unknown type'}${doc.status === 'erased' ? ', erased' : ''}): its text is below.</p>`;
  const name = doc.filename ?? doc.document_kind ?? doc.doc_id;
  const label = `Page ${ev.pageIndex + 1} of ${name}${ev.box ? `, the evidence for ${ev.fact.fact_label} outlined` : ''}`;
  // Above 100 % the page is wider than the viewer: its box scrolls both ways, never crops.
  return html`<div class=${`page-view${zoom > 100 ? ' page-view--zoomed' : ''}`} tabindex="0" role="group" aria-label=${`Page image, zoom ${zoom}%${zoom > 100 ? ', scrolls' : ''}`} data-page-view="">
    <svg class=${`page-view__page page-view__page--z${zoom}`} viewBox=${`0 0 ${image.page_width} ${image.page_height}`} role="img" aria-label=${label} data-page-image="">
      <image href=${pageImageUrl(caseId, doc.doc_id, ev.pageIndex)} x="0" y="0" width=${image.page_width} height=${image.page_height} preserveAspectRatio="none" />
      ${ev.box ? evidenceOutline(ev.box, { width: image.page_width, height: image.page_height }) : null}
    </svg>
  </div>`;
}

/** After an operator's correction: the evidence shown is what the replaced value was read from, said so beside the value now. */
function beforeCorrection(ev: EvidenceView) {
  const c = ev.before;
  if (!c) return null;
  return html`<div class="viewer__before" data-original-evidence="">
    <p class="viewer__before-title"><strong>Original evidence (before the correction)</strong></p>
    <dl class="viewer__values">
      <div><dt>Read from the document</dt><dd>${c.previousValue === null ? html`<span class="muted">No value kept</span>` : html`<del>${c.previousValue}</del>`}</dd></div>
      <div><dt>Corrected value</dt><dd><ins>${ev.fact.value ?? 'No value'}</ins></dd></div>
      <div><dt>Corrected</dt><dd>${timeText(c.at)} by ${c.actorLabel}</dd></div>
    </dl>
  </div>`;
}

/** The evidence viewer: the page image with the evidence outlined, and beside it the page text with the quote marked. */
export function evidenceViewer(caseId: string, ev: EvidenceView | undefined, zoom: Zoom, links: ViewerLinks) {
  if (!ev) {
    return html`<section class="viewer card" id="evidence" aria-labelledby="evidence-title">
      <h2 id="evidence-title" class="card__title">Evidence</h2>
      <p class="muted">No fact of this case has document evidence yet.</p>
    </section>`;
  }
  const item = ev.items[ev.evidenceIndex];
  const doc = ev.document;
  const sel = { fact: ev.fact.fact_id, ev: ev.evidenceIndex, page: ev.pageIndex, zoom };
  const zi = ZOOM_LEVELS.indexOf(zoom);
  return html`<section class="viewer card" id="evidence" aria-labelledby="evidence-title" data-evidence-viewer="">
    <h2 id="evidence-title" class="card__title" tabindex="-1">Evidence for ${ev.fact.fact_label}</h2>
    ${beforeCorrection(ev)}
    ${item ? html`<p class="viewer__quote">Quote: <q>${item.quote}</q></p>` : null}
    ${ev.items.length > 1
      ? html`<nav aria-label="Evidence items" class="cluster small">
          ${ev.items.map((_e, i) => html`<a href=${links.href({ fact: ev.fact.fact_id, ev: i, zoom })} aria-current=${i === ev.evidenceIndex ? 'true' : undefined}>Evidence ${i + 1}</a>`)}
        </nav>`
      : null}
    ${doc
      ? html`<p class="small muted">${doc.filename ?? doc.document_kind ?? doc.doc_id} · page ${ev.pageIndex + 1} of ${ev.pageCount}${ev.pageIndex !== ev.evidencePageIndex ? html` · the evidence is on <a href=${links.href({ ...sel, page: ev.evidencePageIndex })}>page ${ev.evidencePageIndex + 1}</a>` : null}</p>
          <div class="viewer__toolbar" role="group" aria-label="Page controls">
            ${ev.pageIndex > 0 ? html`<a class="button button--secondary button--small" href=${links.href({ ...sel, page: ev.pageIndex - 1 })}>Previous page</a>` : null}
            ${ev.pageIndex < ev.pageCount - 1 ? html`<a class="button button--secondary button--small" href=${links.href({ ...sel, page: ev.pageIndex + 1 })}>Next page</a>` : null}
            ${ev.image && zi > 0 ? html`<a class="button button--secondary button--small" href=${links.href({ ...sel, zoom: ZOOM_LEVELS[zi - 1]! })}>Zoom out<span class="visually-hidden"> to ${ZOOM_LEVELS[zi - 1]}%</span></a>` : null}
            ${ev.image && zi < ZOOM_LEVELS.length - 1 ? html`<a class="button button--secondary button--small" href=${links.href({ ...sel, zoom: ZOOM_LEVELS[zi + 1]! })}>Zoom in<span class="visually-hidden"> to ${ZOOM_LEVELS[zi + 1]}%</span></a>` : null}
            ${ev.image ? html`<a class="button button--secondary button--small" href=${pageImageUrl(caseId, doc.doc_id, ev.pageIndex)}>Open full size<span class="visually-hidden"> image of page ${ev.pageIndex + 1}, ${ev.image.width_px} by ${ev.image.height_px} pixels</span></a>` : null}
            ${doc.status !== 'erased' ? html`<a class="button button--secondary button--small" href=${documentFileUrl(caseId, doc.doc_id)} download="">Download original<span class="visually-hidden"> ${doc.filename ?? doc.doc_id}</span></a>` : null}
          </div>
          <div class="viewer__panes">
            <div class="viewer__image">${pageImageView(caseId, ev, zoom)}</div>
            <div class="viewer__text"><h3 class="small">Page text</h3>${pageTextView(ev)}</div>
          </div>`
      : html`<p class="muted">${item ? 'The document this evidence came from is not available.' : 'This fact has no document evidence.'}</p>`}
  </section>`;
}
