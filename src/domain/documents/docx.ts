import { canonicalizeText } from './canonical-text.ts';
import { documentFailure, documentOk, type DocumentResult, type PageText } from './types.ts';

/**
 * DOCX → one canonical page (Word has no stable pages without a layout engine). mammoth converts
 * the document to its simple HTML; we flatten that to text ourselves instead of using mammoth's raw
 * text mode, because raw text loses table rows: every cell becomes its own paragraph, so a header
 * row "Employee name | Pay date" and the row of values under it come out as four unrelated lines.
 * Here a table row becomes one line with a tab between cells — the same column-gap convention as
 * PDF and plain text — and a paragraph break inside a cell becomes a line break.
 */

/** Limits on the ZIP container, checked before mammoth inflates anything. A 20 MB DOCX can
 * declare gigabytes of XML; real ones stay under a few MB of text even with images. */
const MAX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024;
const MAX_ZIP_ENTRIES = 5_000;

export async function extractDocxPage(bytes: Uint8Array): Promise<DocumentResult<PageText[]>> {
  const zip = inspectZip(bytes);
  if (!zip.ok) return zip;
  const mammoth = (await import('mammoth')).default;
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes) },
      {
        // Images carry no text we can use here, and inlining them as data URIs costs memory.
        convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
        externalFileAccess: false,
        ignoreEmptyParagraphs: true,
      },
    );
    html = result.value;
  } catch (error) {
    return documentFailure('corrupt_document', `DOCX could not be read: ${error instanceof Error ? error.message.slice(0, 200) : 'unknown error'}`);
  }
  const text = canonicalizeText(htmlToText(html));
  return documentOk([{ page_index: 0, text, method: 'docx' }]);
}

/**
 * Reads the ZIP central directory (no inflation) and refuses archives whose declared content is
 * too big, too numerous, or unreadable. ZIP64 archives are refused: a DOCX never needs one.
 */
export function inspectZip(bytes: Uint8Array): DocumentResult<{ entries: number; uncompressed: number }> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The end-of-central-directory record is in the last 22 + 65535 (comment) bytes.
  let eocd = -1;
  for (let i = bytes.byteLength - 22; i >= Math.max(0, bytes.byteLength - 22 - 65535); i--) {
    if (view.getUint32(i, true) === 0x06054b50) { eocd = i; break; }
  }
  if (eocd < 0) return documentFailure('corrupt_document', 'DOCX is not a readable ZIP archive');
  const entries = view.getUint16(eocd + 10, true);
  const directoryOffset = view.getUint32(eocd + 16, true);
  if (entries === 0xffff || directoryOffset === 0xffffffff) return documentFailure('corrupt_document', 'DOCX uses ZIP64, which Word never writes');
  if (entries > MAX_ZIP_ENTRIES) return documentFailure('too_large', `DOCX has ${entries} parts`);
  let offset = directoryOffset;
  let uncompressed = 0;
  for (let n = 0; n < entries; n++) {
    if (offset + 46 > bytes.byteLength || view.getUint32(offset, true) !== 0x02014b50) {
      return documentFailure('corrupt_document', 'DOCX central directory is damaged');
    }
    uncompressed += view.getUint32(offset + 24, true);
    offset += 46 + view.getUint16(offset + 28, true) + view.getUint16(offset + 30, true) + view.getUint16(offset + 32, true);
  }
  if (uncompressed > MAX_UNCOMPRESSED_BYTES) {
    return documentFailure('too_large', `DOCX declares ${uncompressed} uncompressed bytes; the limit is ${MAX_UNCOMPRESSED_BYTES}`);
  }
  return documentOk({ entries, uncompressed });
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/**
 * mammoth's HTML is a small, well-formed vocabulary (p, h1–h6, ul/ol/li, table/tr/td/th, strong,
 * em, a, br, img, sup, sub, s), so a tag scanner is enough. Block ends become line breaks; a
 * cell end becomes a tab; inside a row, a paragraph break inside a cell becomes a line break,
 * which keeps multi-line cells (addresses) under their column.
 */
export function htmlToText(html: string): string {
  let out = '';
  const tag = /<\/?([a-zA-Z0-9]+)[^>]*>|([^<]+)/g;
  let cellOpen = false;
  let cellHasText = false;
  let cellStart = 0;
  for (let match = tag.exec(html); match; match = tag.exec(html)) {
    const [whole, name, text] = match;
    if (text !== undefined) {
      out += decodeEntities(text);
      if (cellOpen && text.trim() !== '') cellHasText = true;
      continue;
    }
    const lower = name!.toLowerCase();
    const closing = whole.startsWith('</');
    switch (lower) {
      case 'td':
      case 'th':
        if (!closing) { cellOpen = true; cellHasText = false; cellStart = out.length; }
        else {
          cellOpen = false;
          // Drop the cell's own trailing paragraph break, never the row break before an empty cell.
          out = out.slice(0, cellStart) + out.slice(cellStart).replace(/\n+$/, '') + '\t';
        }
        break;
      case 'tr':
        if (closing) out = out.replace(/\t$/, '') + '\n';
        break;
      case 'br':
        out += '\n';
        break;
      case 'p': case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': case 'li':
        if (closing) out += cellOpen ? (cellHasText ? '\n' : '') : '\n';
        break;
      case 'table':
        // A table starts and ends on its own line, without adding an empty line to the layout.
        if (out !== '' && !out.endsWith('\n')) out += '\n';
        break;
      default:
        break;
    }
  }
  return out;
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
