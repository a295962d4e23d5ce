/**
 * Documents: bytes → sniffed type → canonical page texts. The public surface for the API and the
 * job worker; see extract-pages.ts for the contract and canonical-text.ts for the text rules.
 */
export { sniffDocumentType } from './sniff.ts';
export { extractPages, DEFAULT_EXTRACTION_LIMITS } from './extract-pages.ts';
export type { ExtractPagesDeps, ExtractionLimits } from './extract-pages.ts';
export type { DocumentExtractor, ExtractionPool, ExtractPagesInput, ExtractedPages, PageRenderer, RenderedPageImage, RenderPagesInput } from './extraction-port.ts';
export { createTesseractOcr, defaultTesseractLangPath } from './ocr/tesseract.ts';
export type { TesseractOcrOptions } from './ocr/tesseract.ts';
export type { OcrEngine, OcrImageResult, OcrLanguages, OcrWord } from './ocr/engine.ts';
export { chooseOcrLanguages, DEFAULT_OCR_LANGUAGES } from './ocr/languages.ts';
export type { OcrLanguageChoice } from './ocr/languages.ts';
export { canonicalizeText } from './canonical-text.ts';
export {
  documentFailure,
  DOCUMENT_REASON_CODES,
  DOCX_MIME_TYPE,
  MAX_DOCUMENT_BYTES,
  SUPPORTED_MIME_TYPES,
} from './types.ts';
export type { DocumentFailure, DocumentReasonCode, DocumentResult, PageText, PageTextMethod, SupportedMimeType } from './types.ts';
