// pdf-lib is loaded on the first case file, not at start: it is 11 MB of a server's idle RSS (issue 16).
import type { Color, PDFDocument, PDFFont, PDFPage } from 'pdf-lib';
import type { CaseState } from '../cases/case-state.ts';
import type { CasePackage } from './case-package.ts';

export interface TimelineEntry {
  cursor: number;
  event_type: string;
  created_at: string;
}

/** The standard fonts encode WinAnsi only; anything else is written as its closest ASCII or `?`. */
export function winAnsiSafe(text: string): string {
  return text
    .replace(/[‘’]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/[–—]/g, '-')
    .replace(/…/g, '...')
    .replace(/[^\x20-\x7E\xA0-\xFF\n]/g, '?');
}

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 50;

/** A flowing text writer over pages: adds a page when the current one is full. */
class Writer {
  #doc: PDFDocument;
  #page: PDFPage;
  #y: number;
  readonly font: PDFFont;
  readonly bold: PDFFont;
  readonly #ink: Color;
  constructor(doc: PDFDocument, font: PDFFont, bold: PDFFont, ink: Color) {
    this.#ink = ink;
    this.#doc = doc;
    this.font = font;
    this.bold = bold;
    this.#page = doc.addPage(A4);
    this.#y = A4[1] - MARGIN;
  }
  line(text: string, options: { size?: number; bold?: boolean; indent?: number; gap?: number } = {}) {
    const size = options.size ?? 10;
    const font = options.bold ? this.bold : this.font;
    const width = A4[0] - 2 * MARGIN - (options.indent ?? 0);
    for (const chunk of wrap(winAnsiSafe(text), font, size, width)) {
      if (this.#y < MARGIN + size) {
        this.#page = this.#doc.addPage(A4);
        this.#y = A4[1] - MARGIN;
      }
      this.#page.drawText(chunk, { x: MARGIN + (options.indent ?? 0), y: this.#y - size, size, font, color: this.#ink });
      this.#y -= size * 1.35;
    }
    this.#y -= options.gap ?? 0;
  }
}

function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    let current = '';
    for (const word of paragraph.split(' ')) {
      const candidate = current ? `${current} ${word}` : word;
      if (font.widthOfTextAtSize(candidate, size) <= width || !current) current = candidate;
      else {
        out.push(current);
        current = word;
      }
    }
    out.push(current);
  }
  return out;
}

/**
 * The sealed case file: the case, its facts with their evidence quotes, the documents, the
 * decision and the timeline, closed by the SHA-256 of the package contents.
 */
export async function renderCaseFilePdf(state: CaseState, pkg: CasePackage, timeline: TimelineEntry[], generatedAt: Date): Promise<Uint8Array> {
  const { PDFDocument, StandardFonts, rgb } = await import('pdf-lib');
  const doc = await PDFDocument.create();
  doc.setTitle(`Case file ${state.caseId}`);
  doc.setProducer('Dossier');
  doc.setCreationDate(generatedAt);
  const w = new Writer(doc, await doc.embedFont(StandardFonts.Helvetica), await doc.embedFont(StandardFonts.HelveticaBold), rgb(0.1, 0.1, 0.1));

  w.line(`Case file ${state.caseId}`, { size: 18, bold: true, gap: 6 });
  w.line(`Case type: ${state.definition.name} (${state.caseTypeId}, workflow ${state.workflowId} ${state.workflowVersion})`);
  w.line(`Operating mode: ${state.operatingMode}`);
  w.line(`Runtime status: ${state.runtimeStatus}${state.caseStatus ? ` - case status: ${state.caseStatus}` : ''}`);
  if (state.externalCaseId) w.line(`External case id: ${state.externalCaseId}`);
  w.line(`Created: ${state.createdAt.toISOString()}   Generated: ${generatedAt.toISOString()}`, { gap: 8 });

  w.line('Decision', { size: 13, bold: true, gap: 2 });
  if (state.caseStatus) {
    w.line(`${state.caseStatus}${state.completedAt ? ` at ${state.completedAt.toISOString()}` : ''}`);
    if (state.decisionReason) w.line(`Reason: ${state.decisionReason}`);
  } else {
    w.line('No decision yet.');
  }
  w.line('', { gap: 4 });

  w.line('Facts', { size: 13, bold: true, gap: 2 });
  for (const [factId, fact] of Object.entries(pkg.facts)) {
    w.line(`${fact.fact_label} (${factId}): ${fact.value ?? '-'}  [${fact.status}${fact.source ? `, ${fact.source}` : ''}]`, { bold: true });
    for (const e of fact.evidence) {
      w.line(`"${e.quote}" - document ${e.doc_id}, page ${e.page_index + 1}, characters ${e.location.char_start}-${e.location.char_end}`, { indent: 14 });
    }
    if (fact.reason_codes.length > 0) w.line(`Reasons: ${fact.reason_codes.join(', ')}`, { indent: 14 });
  }
  w.line('', { gap: 4 });

  w.line('Documents', { size: 13, bold: true, gap: 2 });
  if (pkg.documents.length === 0) w.line('None.');
  for (const d of pkg.documents) {
    w.line(`${d.doc_id}: ${d.status}${d.mime_type ? `, ${d.mime_type}` : ''}${d.page_count ? `, ${d.page_count} page(s)` : ''}${d.sha256 ? `, sha256 ${d.sha256}` : ''}`);
  }
  w.line('', { gap: 4 });

  w.line('Timeline', { size: 13, bold: true, gap: 2 });
  for (const t of timeline) w.line(`#${t.cursor}  ${t.created_at}  ${t.event_type}`, { size: 9 });
  w.line('', { gap: 6 });
  w.line(`Package contents SHA-256: ${pkg.contents_sha256}`, { size: 9, bold: true });
  return doc.save();
}
