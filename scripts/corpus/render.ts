import { AlignmentType, Document, Packer, Paragraph, Table, TableCell, TableRow, TextRun, WidthType } from 'docx';
import { PDFDocument, StandardFonts, type PDFFont } from 'pdf-lib';
import { renderPdfPages } from '../../src/domain/documents/pdf.ts';
import type { Block, Cell, LogicalDocument } from './documents.ts';
import type { Rng } from './prng.ts';

/** The file formats of the corpus. The first three have text; the rest go through OCR. */
export const TEXT_FORMATS = ['pdf', 'docx', 'plain'] as const;
export const OCR_FORMATS = ['png', 'jpeg', 'pdf_scan'] as const;
export type CorpusFormat = (typeof TEXT_FORMATS)[number] | (typeof OCR_FORMATS)[number];

/** Plain text: a monospace page, one character ≈ 5 pt of the PDF layout, ≥ 2 spaces between cells. */
export function renderPlain(doc: LogicalDocument, rng: Rng): Uint8Array {
  const lines = doc.blocks.map((block) => {
    if (block.kind === 'blank') return '';
    if (block.kind === 'title') return block.text;
    let line = '';
    for (const cell of block.cells) {
      const column = Math.round((cell.x - 50) / 5);
      line = line.length === 0 && column === 0 ? cell.text : line.padEnd(Math.max(column, line.length + 2)) + cell.text;
    }
    return line;
  });
  const eol = rng.chance(0.3) ? '\r\n' : '\n';
  return new TextEncoder().encode(lines.join(eol) + eol);
}

/** A piece of text as drawn on a PDF page: y is the baseline from the top edge (y down), in points. */
export interface DrawnText {
  readonly text: string;
  readonly x: number;
  readonly baseline: number;
  readonly size: number;
  readonly font: PDFFont;
}

/**
 * A text PDF (pdf-lib, standard fonts): cells drawn at their x, rows top to bottom. `drawn`, when
 * given, receives every text drawn, so tests can compute where each glyph is.
 */
export async function renderPdf(doc: LogicalDocument, rng: Rng, drawn?: DrawnText[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  fixDates(pdf);
  const [width, height] = rng.chance(0.5) ? [595.28, 841.89] : [612, 792];
  const page = pdf.addPage([width, height]);
  const family = rng.pick([
    [StandardFonts.Helvetica, StandardFonts.HelveticaBold],
    [StandardFonts.TimesRoman, StandardFonts.TimesRomanBold],
    [StandardFonts.Courier, StandardFonts.CourierBold],
  ] as const);
  const font = await pdf.embedFont(family[0]);
  const bold = await pdf.embedFont(family[1]);
  const size = rng.pick([9.5, 10, 10.5, 11]);
  const leading = size * (1.35 + rng.next() * 0.25);
  let y = height - 60;
  for (const block of doc.blocks) {
    if (block.kind === 'blank') { y -= leading * 0.8; continue; }
    if (block.kind === 'title') {
      page.drawText(block.text, { x: 50, y, size: size + 4, font: bold });
      drawn?.push({ text: block.text, x: 50, baseline: height - y, size: size + 4, font: bold });
      y -= (size + 4) * 1.5;
      continue;
    }
    drawRow(page, block.cells, y, font, size, drawn);
    y -= leading;
  }
  return pdf.save();
}

/** pdf-lib stamps the current time by default; a fixed one keeps the corpus byte-identical. */
function fixDates(pdf: PDFDocument): void {
  pdf.setCreationDate(new Date(Date.UTC(2026, 0, 1)));
  pdf.setModificationDate(new Date(Date.UTC(2026, 0, 1)));
  pdf.setProducer('dossier corpus');
  pdf.setCreator('dossier corpus');
}

function drawRow(page: ReturnType<PDFDocument['addPage']>, cells: readonly Cell[], y: number, font: PDFFont, size: number, drawn?: DrawnText[]): void {
  // Never let a long cell run into the next column (push it right, keeping a visible gap) or off
  // the page (shrink the row's font until it fits): real documents are laid out, not clipped.
  const place = (s: number) => {
    let right = 0;
    return cells.map((cell) => {
      const x = Math.max(cell.x, right + s * 1.5);
      right = x + font.widthOfTextAtSize(cell.text, s);
      return { x, right };
    });
  };
  let fitted = size;
  while (fitted > 6 && place(fitted).some((p) => p.right > page.getWidth() - 24)) fitted -= 0.5;
  const positions = place(fitted);
  cells.forEach((cell, i) => {
    page.drawText(cell.text, { x: positions[i]!.x, y, size: fitted, font });
    drawn?.push({ text: cell.text, x: positions[i]!.x, baseline: page.getHeight() - y, size: fitted, font });
  });
}

/** DOCX: single-cell rows are paragraphs; runs of multi-column rows become a table or tab stops. */
export async function renderDocx(doc: LogicalDocument, rng: Rng): Promise<Uint8Array> {
  const useTables = rng.chance(0.7);
  const children: Array<Paragraph | Table> = [];
  const blocks = [...doc.blocks];
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    if (block.kind === 'blank') { children.push(new Paragraph({ children: [] })); continue; }
    if (block.kind === 'title') { children.push(new Paragraph({ children: [new TextRun({ text: block.text, bold: true, size: 28 })] })); continue; }
    if (!isTabular(block)) { children.push(new Paragraph({ children: [new TextRun(block.cells[0]!.text)] })); continue; }
    const group: Array<Extract<Block, { kind: 'row' }>> = [];
    while (i < blocks.length && isTabular(blocks[i]!)) group.push(blocks[i++] as Extract<Block, { kind: 'row' }>);
    i--;
    if (useTables) children.push(docxTable(group));
    else for (const r of group) children.push(tabParagraph(r));
  }
  const document = new Document({ sections: [{ children }] });
  return new Uint8Array(await Packer.toBuffer(document));
}

function isTabular(block: Block): boolean {
  return block.kind === 'row' && (block.cells.length > 1 || block.cells[0]!.x > 50);
}

function docxTable(rows: ReadonlyArray<Extract<Block, { kind: 'row' }>>): Table {
  const columns = [...new Set(rows.flatMap((r) => r.cells.map((c) => c.x)))].sort((a, b) => a - b);
  return new Table({
    width: { size: 100, type: WidthType.PERCENTAGE },
    rows: rows.map((r) => new TableRow({
      children: columns.map((x) => {
        const cell = r.cells.find((c) => c.x === x);
        return new TableCell({ children: [new Paragraph({ alignment: AlignmentType.LEFT, children: cell ? [new TextRun(cell.text)] : [] })] });
      }),
    })),
  });
}

function tabParagraph(r: Extract<Block, { kind: 'row' }>): Paragraph {
  const runs: TextRun[] = [];
  r.cells.forEach((cell, index) => {
    if (index > 0 || cell.x > 50) runs.push(new TextRun({ children: ['\t'] }));
    runs.push(new TextRun(cell.text));
  });
  return new Paragraph({ children: runs });
}

/**
 * A "scan": the text PDF rendered at ~144 dpi, then made less clean the way scanners and phones do
 * — a rotation, a grey paper tone, specks; for JPEG (phone photos) more rotation, a shear and
 * more noise — and saved as PNG or JPEG.
 */
export async function renderScan(pdfBytes: Uint8Array, rng: Rng, format: 'png' | 'jpeg'): Promise<Uint8Array> {
  const { createCanvas, loadImage } = await import('@napi-rs/canvas');
  const [png] = await renderPdfPages(pdfBytes, { scale: 2, format: 'png' });
  const image = await loadImage(Buffer.from(png!));
  const canvas = createCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  const tone = 235 + rng.int(0, 20);
  context.fillStyle = `rgb(${tone},${tone},${tone - rng.int(0, 8)})`;
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.translate(canvas.width / 2, canvas.height / 2);
  // A flatbed PNG sits within ±0.4°; a phone JPEG is rotated up to ±1.5° and sheared (the page
  // not parallel to the lens), with more specks and stronger compression.
  const phone = format === 'jpeg';
  context.rotate(((rng.next() - 0.5) * (phone ? 3 : 0.8) * Math.PI) / 180);
  if (phone) context.transform(1, (rng.next() - 0.5) * 0.01, (rng.next() - 0.5) * 0.03, 1, 0, 0);
  context.translate(-canvas.width / 2, -canvas.height / 2);
  context.globalCompositeOperation = 'multiply';
  context.drawImage(image, 0, 0);
  context.setTransform(1, 0, 0, 1, 0, 0);
  context.globalCompositeOperation = 'source-over';
  for (let i = 0; i < (phone ? 1500 : 400); i++) {
    const grey = rng.int(60, 180);
    context.fillStyle = `rgb(${grey},${grey},${grey})`;
    context.fillRect(rng.int(0, canvas.width), rng.int(0, canvas.height), rng.int(1, 2), rng.int(1, 2));
  }
  return new Uint8Array(format === 'png' ? await canvas.encode('png') : await canvas.encode('jpeg', rng.int(55, 80)));
}

/** An image-only PDF (no text layer) holding a scan, as a scanner's "save as PDF" makes. */
export async function renderScannedPdf(jpeg: Uint8Array): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  fixDates(pdf);
  const image = await pdf.embedJpg(jpeg);
  const page = pdf.addPage([595.28, 841.89]);
  const scale = Math.min(595.28 / image.width, 841.89 / image.height);
  page.drawImage(image, { x: 0, y: 841.89 - image.height * scale, width: image.width * scale, height: image.height * scale });
  return pdf.save();
}
