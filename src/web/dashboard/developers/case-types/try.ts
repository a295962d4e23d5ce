import type { FastifyMultipartAttachFieldsToBodyOptions } from '@fastify/multipart';
import { z } from 'zod';
import { MAX_DOCUMENT_BYTES } from '../../../../domain/documents/index.ts';
import { tryDocument, type FactFound, type FactMissing, type TryDocumentResult } from '../../../../domain/try-document/try-document.ts';
import type { RenderedPageImage } from '../../../../domain/documents/index.ts';
import { formText } from '../../../page-route.ts';
import { html, type Markup } from '../../../render.ts';
import { backLink, notification, table } from '../../../ui/components.ts';
import { tenantOf } from '../../context.ts';
import { dashboardRoute } from '../../route.ts';
import { sendDeveloperPage } from '../shell.ts';
import { CASE_TYPES_PATH } from './list.ts';
import { FACT_TYPE_WORDS, MISSING_REASON_WORDS, valueForPeople } from '../../value-text.ts';

/** The sample's type as the page says it. */
const MEDIA_WORDS: Record<string, string> = {
  'application/pdf': 'a PDF',
  'image/png': 'a PNG image',
  'image/jpeg': 'a JPEG image',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'a Word document',
  'text/plain': 'a text file',
};

/**
 * The sample upload's parser, in a scope of its own (as the case type upload's is): one file of at
 * most the upload limit, and the two small fields beside it.
 */
export const CASE_TYPE_TRY_PARSER: FastifyMultipartAttachFieldsToBodyOptions = {
  attachFieldsToBody: 'keyValues',
  limits: { fileSize: MAX_DOCUMENT_BYTES + 1, files: 1, fields: 3, fieldSize: 1024 },
};

export function caseTypeTryPath(caseTypeId: string): string {
  return `${CASE_TYPES_PATH}/${encodeURIComponent(caseTypeId)}/try`;
}

function pageFigure(image: RenderedPageImage, boxes: ReadonlyArray<{ x: number; y: number; width: number; height: number }>, label: string): Markup {
  const src = `data:${image.contentType};base64,${Buffer.from(image.image).toString('base64')}`;
  return html`<div class="page-view" tabindex="0" role="group" aria-label=${label}>
    <svg class="page-view__page page-view__page--z50" viewBox=${`0 0 ${image.pageWidth} ${image.pageHeight}`} role="img" aria-label=${label} data-page-image="">
      <image href=${src} x="0" y="0" width=${image.pageWidth} height=${image.pageHeight} preserveAspectRatio="none" />
      ${boxes.map((b) => html`<rect class="evidence-box" x=${b.x} y=${b.y} width=${b.width} height=${b.height} vector-effect="non-scaling-stroke" data-evidence-box="" />`)}
    </svg>
  </div>`;
}

function foundView(result: TryDocumentResult): Markup {
  const images = result.page_images ?? [];
  return html`<section class="card card--flush" aria-labelledby="found-heading">
      <h2 class="card__title card__title--inset" id="found-heading">Facts found (${result.facts_found.length})</h2>
      ${table({
        stack: true,
        caption: 'Facts found in the sample',
        captionHidden: true,
        rows: result.facts_found,
        empty: 'No fact was found. The suggestions below say which labels would find them.',
        columns: [
          { header: 'Fact', rowHeader: true, cell: (f: FactFound) => html`${f.label}<br /><code class="muted">${f.fact_id}</code>` },
          { header: 'Value', cell: (f: FactFound) => html`<strong title=${`Stored as ${f.value}`}>${valueForPeople(f.value, f.evidence[0]?.quote)}</strong>` },
          { header: 'Anchor that matched', cell: (f: FactFound) => html`<q>${f.matched_anchor.anchor}</q>${f.matched_anchor.label_on_page !== f.matched_anchor.anchor ? html` (on the page: <q>${f.matched_anchor.label_on_page}</q>)` : null}` },
          { header: 'Evidence', cell: (f: FactFound) => html`${f.evidence.map((e) => html`<span>Page ${e.page_index + 1}: <q>${e.quote}</q></span> `)}` },
        ],
      })}
    </section>
    ${images.map((image) => {
      const boxes = result.facts_found.flatMap((f) => f.evidence.filter((e) => e.page_index === image.pageIndex && e.box).map((e) => e.box!));
      const names = result.facts_found.filter((f) => f.evidence.some((e) => e.page_index === image.pageIndex)).map((f) => f.label);
      return html`<section class="card" aria-labelledby=${`page-${image.pageIndex}`}>
        <h2 class="card__title" id=${`page-${image.pageIndex}`}>Page ${image.pageIndex + 1}</h2>
        ${pageFigure(image, boxes, `Page ${image.pageIndex + 1} of the sample${names.length ? `, the evidence for ${names.join(', ')} outlined` : ''}`)}
      </section>`;
    })}`;
}

function missingView(result: TryDocumentResult): Markup {
  return html`<section class="card card--flush" aria-labelledby="missing-heading">
    <h2 class="card__title card__title--inset" id="missing-heading">Facts not found (${result.facts_missing.length})</h2>
    ${table({
      stack: true,
      caption: 'Facts not found in the sample, with suggested anchors',
      captionHidden: true,
      rows: result.facts_missing,
      empty: 'Every fact was found.',
      columns: [
        { header: 'Fact', rowHeader: true, cell: (f: FactMissing) => html`${f.label}<br /><code class="muted">${f.fact_id}</code> <span class="muted">(${FACT_TYPE_WORDS[f.type]})</span>` },
        { header: 'Why', cell: (f: FactMissing) => html`<span title=${f.reason_codes.join(', ')}>${f.reason_codes.map((c) => MISSING_REASON_WORDS[c]).find(Boolean) ?? 'It was not read from this sample'}</span>` },
        {
          header: 'Suggestions',
          cell: (f: FactMissing) =>
            f.suggestions.length === 0
              ? html`<span class="muted">No label of this sample sits next to ${FACT_TYPE_WORDS[f.type]} that would be read.</span>`
              : html`<ul class="plain-list">${f.suggestions.map((s) => html`<li data-suggestion="">${s.message}: it reads <strong>${valueForPeople(s.value, null)}</strong> on page ${s.page_index + 1}.</li>`)}</ul>`,
        },
      ],
    })}
  </section>`;
}

/**
 * POST /dashboard/developers/case-types/{case_type_id}/try: an admin's sample, read as a case's
 * document would be against the current version, answered on the spot. Nothing is stored; the
 * results live in this response only (a reload asks to send the file again, which is the truth).
 */
export const caseTypeTryPost = dashboardRoute({
  method: 'POST',
  url: '/developers/case-types/:case_type_id/try',
  auth: 'admin',
  params: z.object({ case_type_id: z.string() }),
  body: z.object({ sample_file: z.unknown().optional(), document_kind: formText }),
  handler: async ({ request, reply, params, body, deps }) => {
    const tenant = tenantOf(request);
    const back = `${CASE_TYPES_PATH}/${encodeURIComponent(params.case_type_id)}`;
    const file = body.sample_file;
    const bytes = Buffer.isBuffer(file) ? new Uint8Array(file) : typeof file === 'string' ? new Uint8Array(Buffer.from(file, 'utf8')) : new Uint8Array();
    const kind = body.document_kind.trim();
    const result = await tryDocument(deps.ctx, { tenant, caseTypeId: params.case_type_id, document: { bytes }, documentKind: kind === '' ? undefined : kind, withPageImages: true });
    if (!result.ok && result.code === 'not_found') return reply.callNotFound();
    return sendDeveloperPage(request, reply, deps, {
      title: 'Try a document',
      nav: 'case-types',
      status: result.ok ? 200 : 400,
      body: () =>
        html`${backLink(back, 'Back to the case type')}
          <div class="page-header"><h1>Try a document</h1></div>
          ${result.ok
            ? html`<p>What <code>${result.value.case_type_id}</code> reads in this sample${result.value.document_kind ? html` as a <code>${result.value.document_kind}</code>` : null} (${MEDIA_WORDS[result.value.mime_type] ?? 'a file'}, ${result.value.pages.length} ${result.value.pages.length === 1 ? 'page' : 'pages'}). Nothing was stored: the sample is gone with this page.</p>
                ${foundView(result.value)} ${missingView(result.value)}`
            : notification({ tone: 'danger', title: 'The sample could not be tried', children: html`<p>${result.message}</p><p><a href=${back}>Choose another file</a>.</p>` })}`,
    });
  },
});
