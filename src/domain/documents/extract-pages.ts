import { canonicalizeText } from './canonical-text.ts';
import { alignTextOrigin } from './origin.ts';
import { extractDocxPage } from './docx.ts';
import { readExifOrientation, readImageSize } from './image.ts';
import { readingIn, type OcrEngine } from './ocr/engine.ts';
import { ocrPage } from './ocr/page.ts';
import { decodeRaster, type Raster } from './ocr/raster.ts';
import { extractPdfPages } from './pdf.ts';
import type { ExtractedPages, ExtractPagesInput } from './extraction-port.ts';
import { sniffDocumentType } from './sniff.ts';
import {
  documentFailure,
  documentOk,
  type DocumentResult,
  type PageText,
  type SupportedMimeType,
} from './types.ts';

export interface ExtractionLimits {
  /** Deadline for the whole document, OCR included. */
  readonly timeoutMs: number;
  readonly maxPages: number;
  /** Images above this many pixels are refused outright (a 20 MB PNG can hold ~5 gigapixels). */
  readonly maxImagePixels: number;
  /**
   * Images inside a PDF above this many pixels are left out unread. An A4 or Letter page scanned
   * at 600 dpi is ~35 MP; decoding is 4 bytes a pixel, so 40 MP bounds one image at 160 MB.
   */
  readonly maxPdfImagePixels: number;
  /**
   * Images between this and `maxImagePixels` are downscaled to it before OCR: 4 MP is A4 at
   * ~205 dpi, where 8 pt text still reads well. Tesseract's time grows with pixels: an A4 page at
   * 300 dpi took 2.3 s at 6 MP on this machine and ~1.7 s at 4 MP.
   */
  readonly ocrTargetPixels: number;
  /** Scale at which text-less PDF pages are rendered for OCR (2 ≈ 144 dpi). */
  readonly pdfRenderScale: number;
  /**
   * Canonical text characters per document, all pages together. 1 M characters is ~400 dense
   * pages; beyond it a "document" is a data dump, and fact extraction (linear in the text, with
   * a cost per line) would spend seconds on it for nothing.
   */
  readonly maxTextChars: number;
}

/** Chosen for a worker on two shared cores: a 20-page scan at ~1 s per page fits the deadline. */
export const DEFAULT_EXTRACTION_LIMITS: ExtractionLimits = {
  timeoutMs: 120_000,
  maxPages: 100,
  maxImagePixels: 100_000_000,
  maxPdfImagePixels: 40_000_000,
  ocrTargetPixels: 4_000_000,
  pdfRenderScale: 2,
  maxTextChars: 1_000_000,
};

export interface ExtractPagesDeps {
  /** Shared OCR engine (createTesseractOcr); reused across pages and documents, closed by its owner. */
  readonly ocr: OcrEngine;
  readonly limits?: Partial<ExtractionLimits>;
}

/**
 * Document bytes → one canonical text per page, or a failure with a stable reason code. Never
 * throws for anything a document can do (corrupt, encrypted, huge, empty, slow): those are values.
 * It throws only for broken infrastructure that is not about the document, which should fail the
 * job and be retried.
 *
 * - PDF: the text layer, laid out by position (canonical-text.ts); a page with no text layer is
 *   rendered and OCRed (method 'ocr').
 * - PNG / JPEG: OCR, one page.
 * - DOCX: mammoth, one page (method 'docx').
 * - Plain text: UTF-8, one page (method 'plain').
 * A document whose pages hold no text at all is `no_text_found`.
 */
export async function extractPages(deps: ExtractPagesDeps, input: ExtractPagesInput): Promise<DocumentResult<ExtractedPages>> {
  const limits = { ...DEFAULT_EXTRACTION_LIMITS, ...deps.limits };
  const sniffed = await sniffDocumentType(input.bytes);
  if (!sniffed.ok) return sniffed;
  if (input.mimeType && input.mimeType !== sniffed.value) {
    return documentFailure('unsupported_type', `declared ${input.mimeType}, but the bytes are ${sniffed.value}`);
  }
  const mimeType = sniffed.value;

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  const onOuterAbort = () => controller.abort();
  input.signal?.addEventListener('abort', onOuterAbort, { once: true });
  if (input.signal?.aborted) controller.abort();
  const signal = controller.signal;
  let stopped: (value: DocumentResult<PageText[]>) => void = () => {};
  const deadline = new Promise<DocumentResult<PageText[]>>((resolve) => { stopped = resolve; });
  signal.addEventListener('abort', () => stopped(documentFailure('extraction_timeout', `extraction exceeded ${limits.timeoutMs} ms`)), { once: true });
  if (signal.aborted) stopped(documentFailure('extraction_timeout', 'extraction was cancelled before it started'));

  try {
    // The race makes the deadline hold even inside a library call that ignores the signal; the
    // abandoned work is torn down by the signal listeners (pdfjs task, OCR worker).
    const ocr = input.ocrLanguages ? readingIn(deps.ocr, input.ocrLanguages) : deps.ocr;
    const result = await Promise.race([extractByType(ocr, limits, mimeType, input.bytes, signal), deadline]);
    if (!result.ok) return result;
    if (result.value.every((page) => !/[\p{L}\p{N}]/u.test(page.text))) {
      return documentFailure('no_text_found', 'no text layer and OCR found no text');
    }
    const characters = result.value.reduce((sum, page) => sum + page.text.length, 0);
    if (characters > limits.maxTextChars) {
      return documentFailure('too_large', `document holds ${characters} characters of text; the limit is ${limits.maxTextChars}`);
    }
    return documentOk({ mime_type: mimeType, pages: result.value });
  } finally {
    clearTimeout(timer);
    input.signal?.removeEventListener('abort', onOuterAbort);
  }
}

async function extractByType(
  ocr: OcrEngine,
  limits: ExtractionLimits,
  mimeType: SupportedMimeType,
  bytes: Uint8Array,
  signal: AbortSignal,
): Promise<DocumentResult<PageText[]>> {
  switch (mimeType) {
    case 'text/plain': {
      const raw = new TextDecoder('utf-8').decode(bytes);
      const text = canonicalizeText(raw);
      return documentOk([{ page_index: 0, text, method: 'plain', origin: alignTextOrigin(raw, text) }]);
    }
    case 'application/vnd.openxmlformats-officedocument.wordprocessingml.document':
      return extractDocxPage(bytes);
    case 'application/pdf':
      return extractPdfPages(bytes, {
        maxPages: limits.maxPages,
        maxRenderPixels: limits.ocrTargetPixels,
        renderScale: limits.pdfRenderScale,
        maxImagePixels: limits.maxPdfImagePixels,
        signal,
        ocrPage: async (png, pageIndex, frame) => {
          let raster: Raster;
          try {
            raster = await decodeRaster(png);
          } catch {
            return documentFailure('corrupt_document', 'page image could not be decoded');
          }
          return ocrPage(ocr, raster, pageIndex, signal, frame);
        },
      });
    case 'image/png':
    case 'image/jpeg': {
      const stored = readImageSize(bytes, mimeType);
      if (!stored) return documentFailure('corrupt_document', `${mimeType} header is unreadable`);
      const pixels = stored.width * stored.height;
      if (pixels > limits.maxImagePixels) {
        return documentFailure('too_large', `image is ${stored.width}×${stored.height}; the limit is ${limits.maxImagePixels} pixels`);
      }
      // Decoded once, upright (the decoder applies a photo's EXIF orientation) and no larger than OCR needs.
      let image: Raster;
      try {
        image = await decodeRaster(bytes, limits.ocrTargetPixels);
      } catch {
        return documentFailure('corrupt_document', `${mimeType} could not be decoded`);
      }
      // The page is the image as uploaded, upright: EXIF orientations 5–8 are a quarter turn.
      const size = mimeType === 'image/jpeg' && readExifOrientation(bytes) >= 5 ? { width: stored.height, height: stored.width } : stored;
      const pixelsPerUnit = pixels > limits.ocrTargetPixels ? Math.sqrt(limits.ocrTargetPixels / pixels) : 1;
      const page = await ocrPage(ocr, image, 0, signal, { size: { width: size.width, height: size.height, unit: 'px' }, pixelsPerUnit });
      return page.ok ? documentOk([page.value]) : page;
    }
  }
}
