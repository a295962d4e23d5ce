// file-type (and the tokenizers under it) loads with the first document, not at start (issue 16, idle RSS).
import {
  DOCX_MIME_TYPE,
  MAX_DOCUMENT_BYTES,
  documentFailure,
  documentOk,
  type DocumentResult,
  type SupportedMimeType,
} from './types.ts';

/**
 * Decides a document's type from its bytes alone (contract §9: never the file name, never the
 * uploader's Content-Type). Binary formats are recognised by `file-type` from their magic numbers
 * (for DOCX it reads the ZIP entries — `[Content_Types].xml` or a `word/` folder — so a plain
 * .zip or an .xlsx is refused). Anything without a binary signature is plain text only when it is valid
 * UTF-8 and holds no control bytes other than TAB, LF, CR and FF: that keeps arbitrary binaries,
 * UTF-16 text and NUL-padded junk out of the text pipeline instead of producing mojibake facts.
 *
 * Refuses: over 20 MiB → `too_large`; zero bytes → `empty_document`; anything else →
 * `unsupported_type`. Never throws.
 */
export async function sniffDocumentType(bytes: Uint8Array): Promise<DocumentResult<SupportedMimeType>> {
  if (bytes.byteLength > MAX_DOCUMENT_BYTES) {
    return documentFailure('too_large', `document is ${bytes.byteLength} bytes; the limit is ${MAX_DOCUMENT_BYTES}`);
  }
  if (bytes.byteLength === 0) return documentFailure('empty_document', 'document has no bytes');

  let detected: { mime: string } | undefined;
  const { fileTypeFromBuffer } = await import('file-type');
  try {
    detected = await fileTypeFromBuffer(bytes);
  } catch {
    // file-type throws on some truncated containers; those are simply not a known binary type.
    detected = undefined;
  }
  if (detected) {
    switch (detected.mime) {
      case 'application/pdf':
      case 'image/png':
      case 'image/jpeg':
      case DOCX_MIME_TYPE:
        return documentOk(detected.mime);
      default:
        return documentFailure('unsupported_type', `bytes are ${detected.mime}, which is not an accepted document type`);
    }
  }
  // file-type needs the trailer of a PDF for some variants; a leading %PDF- is decisive on its own.
  if (startsWithAscii(bytes, '%PDF-')) return documentOk('application/pdf');
  if (isPlainText(bytes)) return documentOk('text/plain');
  return documentFailure('unsupported_type', 'bytes are not PDF, PNG, JPEG, DOCX or UTF-8 text');
}

function startsWithAscii(bytes: Uint8Array, prefix: string): boolean {
  if (bytes.byteLength < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix.charCodeAt(i)) return false;
  return true;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Valid UTF-8 with no C0 control bytes except TAB, LF, FF, CR, and no DEL. */
export function isPlainText(bytes: Uint8Array): boolean {
  for (const byte of bytes) {
    if ((byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d) || byte === 0x7f) return false;
  }
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}
