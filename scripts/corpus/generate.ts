import { DOCUMENT_KINDS, type DocumentKind } from './case-types.ts';
import { generateDocument, type LogicalDocument } from './documents.ts';
import { createRng, type Rng } from './prng.ts';
import { renderDocx, renderPdf, type DrawnText, renderPlain, renderScan, renderScannedPdf, type CorpusFormat } from './render.ts';

export interface CorpusDocument {
  readonly id: string;
  readonly format: CorpusFormat;
  readonly bytes: Uint8Array;
  readonly logical: LogicalDocument;
  /** Text PDFs: every text drawn, with its font and position (for the evidence box property test). */
  readonly drawn?: readonly DrawnText[];
}

export interface CorpusOptions {
  readonly seed: number;
  /** Logical documents rendered in every text format (pdf, docx, plain). */
  readonly textDocuments: number;
  /** Documents rendered as scans, cycling png → jpeg → image-only PDF. */
  readonly ocrDocuments: number;
  /** Families to cycle through (default the five of the test corpus; the evaluation passes all nine). */
  readonly families?: readonly DocumentKind[];
}

/**
 * The evaluation corpus, generated in code from a seed: half pay stubs, half utility bills, each
 * logical document rendered as a text PDF, a DOCX and a plain-text file; the first `ocrDocuments`
 * logical documents also as a PNG, JPEG or scanned PDF. Same seed → the same documents: PDF, plain
 * text and images are byte-identical for given library versions; DOCX files differ only in the
 * creation time the writer stamps into their metadata, which extraction never reads.
 */
export async function* generateCorpus(options: CorpusOptions): AsyncGenerator<CorpusDocument> {
  const root = createRng(options.seed);
  const families = options.families ?? DOCUMENT_KINDS;
  const count = Math.max(options.textDocuments, options.ocrDocuments);
  for (let i = 0; i < count; i++) {
    const kind: DocumentKind = families[i % families.length]!;
    const docRng = root.fork(`doc-${i}`);
    const logical = generateDocument(docRng.fork('content'), kind, i);
    const drawn: DrawnText[] = [];
    const pdf = await renderPdf(logical, docRng.fork('pdf'), drawn);
    if (i < options.textDocuments) {
      yield { id: `${logical.id}.pdf`, format: 'pdf', bytes: pdf, logical, drawn };
      yield { id: `${logical.id}.docx`, format: 'docx', bytes: await renderDocx(logical, docRng.fork('docx')), logical };
      yield { id: `${logical.id}.txt`, format: 'plain', bytes: renderPlain(logical, docRng.fork('plain')), logical };
    }
    if (i < options.ocrDocuments) yield await scanOf(i, logical, pdf, docRng, families.length);
  }
}

/** Document `index` of the corpus as its scan (PNG, JPEG or image-only PDF by the index), alone. */
export async function corpusScan(options: { seed: number; index: number; families?: readonly DocumentKind[] }): Promise<CorpusDocument> {
  const families = options.families ?? DOCUMENT_KINDS;
  const docRng = createRng(options.seed).fork(`doc-${options.index}`);
  const logical = generateDocument(docRng.fork('content'), families[options.index % families.length]!, options.index);
  return scanOf(options.index, logical, await renderPdf(logical, docRng.fork('pdf')), docRng, families.length);
}

const SCAN_FORMATS = ['png', 'jpeg', 'pdf_scan'] as const;

async function scanOf(index: number, logical: LogicalDocument, pdf: Uint8Array, docRng: Rng, familyCount: number): Promise<CorpusDocument> {
  // With a number of families that is a multiple of three, cycling formats by index alone would
  // give each family one scan format only (nine families: tax notices always PNG): each round of
  // families then shifts the formats by one. Five families keep the plain cycle they always had.
  const shift = familyCount % SCAN_FORMATS.length === 0 ? Math.floor(index / familyCount) : 0;
  const format = SCAN_FORMATS[(index + shift) % SCAN_FORMATS.length]!;
  const scanRng = docRng.fork('scan');
  if (format === 'pdf_scan') {
    const jpeg = await renderScan(pdf, scanRng, 'jpeg');
    return { id: `${logical.id}.scan.pdf`, format, bytes: await renderScannedPdf(jpeg), logical };
  }
  return { id: `${logical.id}.${format === 'png' ? 'png' : 'jpg'}`, format, bytes: await renderScan(pdf, scanRng, format), logical };
}
