import type { EvidenceView } from '../../../domain/console/case-view.ts';
import { html } from '../../render.ts';

/** Zoom steps of the page image, in percent of the viewer's width. */
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

function pageImageView(caseId: string, ev: EvidenceView, zoom: Zoom) {
  const image = ev.image;
  const doc = ev.document!;
  if (!image) return html`<p class="notification">There is no page image for this document (${doc.mime_type ?? 'unknown type'}${doc.status === 'erased' ? ', erased' : ''}): its text is below.</p>`;
  const name = doc.filename ?? doc.document_kind ?? doc.doc_id;
  const label = `Page ${ev.pageIndex + 1} of ${name}${ev.box ? `, the evidence for ${ev.fact.fact_label} outlined` : ''}`;
  return html`<div class="page-view" tabindex="0" role="group" aria-label=${`Page image, zoom ${zoom}%`}>
    <svg class=${`page-view__page page-view__page--z${zoom}`} viewBox=${`0 0 ${image.page_width} ${image.page_height}`} role="img" aria-label=${label} data-page-image="">
      <image href=${pageImageUrl(caseId, doc.doc_id, ev.pageIndex)} x="0" y="0" width=${image.page_width} height=${image.page_height} preserveAspectRatio="none" />
      ${ev.box
        ? html`<rect class="evidence-box" x=${ev.box.x} y=${ev.box.y} width=${ev.box.width} height=${ev.box.height} vector-effect="non-scaling-stroke" data-evidence-box="" />`
        : null}
    </svg>
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
  const item = ev.fact.evidence[ev.evidenceIndex];
  const doc = ev.document;
  const sel = { fact: ev.fact.fact_id, ev: ev.evidenceIndex, page: ev.pageIndex, zoom };
  const zi = ZOOM_LEVELS.indexOf(zoom);
  return html`<section class="viewer card" id="evidence" aria-labelledby="evidence-title" data-evidence-viewer="">
    <h2 id="evidence-title" class="card__title" tabindex="-1">Evidence for ${ev.fact.fact_label}</h2>
    ${item ? html`<p class="viewer__quote">Quote: <q>${item.quote}</q></p>` : null}
    ${ev.fact.evidence.length > 1
      ? html`<nav aria-label="Evidence items" class="cluster small">
          ${ev.fact.evidence.map((_e, i) => html`<a href=${links.href({ fact: ev.fact.fact_id, ev: i, zoom })} aria-current=${i === ev.evidenceIndex ? 'true' : undefined}>Evidence ${i + 1}</a>`)}
        </nav>`
      : null}
    ${doc
      ? html`<p class="small muted">${doc.filename ?? doc.document_kind ?? doc.doc_id} · page ${ev.pageIndex + 1} of ${ev.pageCount}${ev.pageIndex !== ev.evidencePageIndex ? html` · the evidence is on <a href=${links.href({ ...sel, page: ev.evidencePageIndex })}>page ${ev.evidencePageIndex + 1}</a>` : null}</p>
          <div class="viewer__toolbar" role="group" aria-label="Page controls">
            ${ev.pageIndex > 0 ? html`<a class="button button--secondary button--small" href=${links.href({ ...sel, page: ev.pageIndex - 1 })}>Previous page</a>` : null}
            ${ev.pageIndex < ev.pageCount - 1 ? html`<a class="button button--secondary button--small" href=${links.href({ ...sel, page: ev.pageIndex + 1 })}>Next page</a>` : null}
            ${ev.image && zi > 0 ? html`<a class="button button--secondary button--small" href=${links.href({ ...sel, zoom: ZOOM_LEVELS[zi - 1]! })}>Zoom out<span class="visually-hidden"> to ${ZOOM_LEVELS[zi - 1]}%</span></a>` : null}
            ${ev.image && zi < ZOOM_LEVELS.length - 1 ? html`<a class="button button--secondary button--small" href=${links.href({ ...sel, zoom: ZOOM_LEVELS[zi + 1]! })}>Zoom in<span class="visually-hidden"> to ${ZOOM_LEVELS[zi + 1]}%</span></a>` : null}
            ${doc.status !== 'erased' ? html`<a class="button button--secondary button--small" href=${documentFileUrl(caseId, doc.doc_id)} download="">Download original<span class="visually-hidden"> ${doc.filename ?? doc.doc_id}</span></a>` : null}
          </div>
          <div class="viewer__panes">
            <div class="viewer__image">${pageImageView(caseId, ev, zoom)}</div>
            <div class="viewer__text"><h3 class="small">Page text</h3>${pageTextView(ev)}</div>
          </div>`
      : html`<p class="muted">The document this evidence came from is not available.</p>`}
  </section>`;
}
