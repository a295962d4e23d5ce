import { canonicalizeText } from './canonical-text.ts';
import { alignTextOrigin } from './origin.ts';
import { documentFailure, documentOk, type DocumentFailure, type DocumentResult, type PageText } from './types.ts';
import { openZip, type ZipArchive } from './zip.ts';

/**
 * DOCX → one canonical page (Word has no stable pages without a layout engine). mammoth converts
 * the document to its simple HTML; we flatten that to text ourselves instead of using mammoth's raw
 * text mode, because raw text loses table rows: every cell becomes its own paragraph, so a header
 * row "Employee name | Pay date" and the row of values under it come out as four unrelated lines.
 * Here a table row becomes one line with a tab between cells — the same column-gap convention as
 * PDF and plain text — and a paragraph break inside a cell becomes a line break.
 */

/** Limits on the ZIP container, checked before anything is inflated. A 20 MB DOCX can declare
 * gigabytes of XML; real ones stay under a few MB of text even with images. The declared sizes
 * are then enforced while inflating (zip.ts), so forging them gains nothing. */
const ZIP_LIMITS = { maxUncompressedBytes: 200 * 1024 * 1024, maxEntries: 5_000 };

/**
 * Table cells per document. mammoth builds a full object tree per cell, and its time and memory
 * grow faster than the cell count (measured here, one fresh process each: 50,000 cells 12 s and
 * 670 MB; 150,000 cells 35 s and ~2 GB, mostly garbage collection). 25,000 cells is a 50-page
 * table of 10 columns (~6 s); a document with more is a data export, refused before mammoth
 * builds anything.
 */
const MAX_TABLE_CELLS = 25_000;
/** A table cell start tag, whatever the namespace prefix (Word writes `w:`): `<w:tc>`, `<w:tc …>`. */
const TABLE_CELL = /<(?:[A-Za-z_][\w.-]*:)?tc[\s/>]/g;

/** Carries a part's refusal out through mammoth's promise chain. */
class PartRefused extends Error {
  readonly failure: DocumentFailure;
  constructor(failure: DocumentFailure) {
    super(failure.message);
    this.failure = failure;
  }
}

export async function extractDocxPage(bytes: Uint8Array): Promise<DocumentResult<PageText[]>> {
  const raw = await readDocxText(bytes);
  if (!raw.ok) return raw;
  const text = canonicalizeText(raw.value);
  return documentOk([{ page_index: 0, text, method: 'docx', origin: alignTextOrigin(raw.value, text) }]);
}

/**
 * The DOCX's "original text", which DOCX evidence `source` offsets index: the body with one line
 * per paragraph and a tab between table cells (htmlToText), before canonicalisation.
 */
export async function readDocxText(bytes: Uint8Array): Promise<DocumentResult<string>> {
  const zip = openZip(bytes, ZIP_LIMITS);
  if (!zip.ok) return zip;
  const archive = zip.value;
  const mammoth = (await import('mammoth')).default;
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      // mammoth reads parts through this interface (its own JSZip wrapper has the same shape);
      // giving it ours means every part it reads is inflated under the cap. Media parts are never
      // read: the image converter below does not ask for their bytes.
      { file: mammothFile(archive) } as unknown as { buffer: Buffer },
      {
        // Images carry no text we can use here, and inlining them as data URIs costs memory.
        convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
        externalFileAccess: false,
        ignoreEmptyParagraphs: true,
      },
    );
    html = result.value;
  } catch (error) {
    if (error instanceof PartRefused) return error.failure;
    return documentFailure('corrupt_document', `DOCX could not be read: ${error instanceof Error ? error.message.slice(0, 200) : 'unknown error'}`);
  }
  return documentOk(htmlToText(html));
}

function mammothFile(archive: ZipArchive) {
  let cells = 0;
  return {
    exists: (name: string) => archive.has(name),
    read: async (name: string, encoding?: string): Promise<string | Uint8Array> => {
      const part = archive.read(name);
      if (!part.ok) throw new PartRefused(part);
      if (encoding === 'base64') return Buffer.from(part.value).toString('base64');
      if (!encoding) return part.value;
      const text = new TextDecoder(encoding).decode(part.value);
      for (TABLE_CELL.lastIndex = 0; TABLE_CELL.test(text);) {
        if (++cells > MAX_TABLE_CELLS) throw new PartRefused(documentFailure('too_large', `DOCX has more than ${MAX_TABLE_CELLS} table cells`));
      }
      return text;
    },
    write: () => { throw new Error('DOCX parts are read-only here'); },
    toArrayBuffer: () => { throw new Error('DOCX parts are read-only here'); },
  };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/**
 * mammoth's HTML is a small, well-formed vocabulary (p, h1–h6, ul/ol/li, table/tr/td/th, strong,
 * em, a, br, img, sup, sub, s), so a tag scanner is enough. Block ends become line breaks; a
 * cell end becomes a tab; inside a row, a paragraph break inside a cell becomes a line break,
 * which keeps multi-line cells (addresses) under their column.
 */
export function htmlToText(html: string): string {
  // The text is kept as a list of pieces joined once at the end, and every edit touches only its
  // tail. Rebuilding the whole string at each cell end (slice + concat) and testing /\t$/ against
  // it made a table of n cells cost n²: 150,000 cells took minutes; now they take milliseconds.
  const out = new TextPieces();
  const tag = /<\/?([a-zA-Z0-9]+)[^>]*>|([^<]+)/g;
  let cellOpen = false;
  let cellHasText = false;
  let cellStart = 0;
  for (let match = tag.exec(html); match; match = tag.exec(html)) {
    const [whole, name, text] = match;
    if (text !== undefined) {
      out.push(decodeEntities(text));
      if (cellOpen && text.trim() !== '') cellHasText = true;
      continue;
    }
    const lower = name!.toLowerCase();
    const closing = whole.startsWith('</');
    switch (lower) {
      case 'td':
      case 'th':
        if (!closing) { cellOpen = true; cellHasText = false; cellStart = out.mark(); }
        else {
          cellOpen = false;
          // Drop the cell's own trailing paragraph break, never the row break before an empty cell.
          out.trimEndSince(cellStart, '\n');
          out.push('\t');
        }
        break;
      case 'tr':
        if (closing) { out.dropLastChar('\t'); out.push('\n'); }
        break;
      case 'br':
        out.push('\n');
        break;
      case 'p': case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': case 'li':
        if (closing) out.push(cellOpen ? (cellHasText ? '\n' : '') : '\n');
        break;
      case 'table':
        // A table starts and ends on its own line, without adding an empty line to the layout.
        if (!out.isEmpty() && !out.endsWith('\n')) out.push('\n');
        break;
      default:
        break;
    }
  }
  return out.toString();
}

/** An append-only string whose edits (trim the end, drop the last character) touch only the tail. */
class TextPieces {
  readonly #pieces: string[] = [];

  push(piece: string): void {
    if (piece !== '') this.#pieces.push(piece);
  }

  /** A position to trim back to: everything pushed after it can be trimmed, nothing before. */
  mark(): number {
    return this.#pieces.length;
  }

  /** Removes trailing `ch` characters from what was pushed since `mark`. */
  trimEndSince(mark: number, ch: string): void {
    while (this.#pieces.length > mark) {
      const last = this.#pieces[this.#pieces.length - 1]!;
      let end = last.length;
      while (end > 0 && last[end - 1] === ch) end--;
      if (end > 0) { this.#pieces[this.#pieces.length - 1] = last.slice(0, end); return; }
      this.#pieces.pop();
    }
  }

  dropLastChar(ch: string): void {
    const last = this.#pieces[this.#pieces.length - 1];
    if (last === undefined || !last.endsWith(ch)) return;
    if (last.length === 1) this.#pieces.pop();
    else this.#pieces[this.#pieces.length - 1] = last.slice(0, -1);
  }

  endsWith(ch: string): boolean {
    return this.#pieces[this.#pieces.length - 1]?.endsWith(ch) ?? false;
  }

  isEmpty(): boolean {
    return this.#pieces.length === 0;
  }

  toString(): string {
    return this.#pieces.join('');
  }
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, body: string) => {
    if (body.startsWith('#x') || body.startsWith('#X')) return safeCodePoint(parseInt(body.slice(2), 16)) ?? whole;
    if (body.startsWith('#')) return safeCodePoint(parseInt(body.slice(1), 10)) ?? whole;
    return ENTITIES[body] ?? whole;
  });
}

function safeCodePoint(code: number): string | undefined {
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}
