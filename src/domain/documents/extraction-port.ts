import type { OcrLanguages } from './ocr/engine.ts';
import type { DocumentResult, PageText, SupportedMimeType } from './types.ts';

/*
 * Page extraction and page drawing as ports: what the domain asks of the extraction children
 * (jobs/extraction-pool.ts), in the document vocabulary of types.ts. Kept apart from
 * extract-pages.ts (the implementation the children run) so domain/deps.ts can name the pool
 * without pulling in the extractors. Not in src/ports: ports import nothing from the domain, and
 * these speak the domain's document types.
 */

export interface ExtractPagesInput {
  readonly bytes: Uint8Array;
  /**
   * The type sniffDocumentType gave for these bytes. Optional: when absent the bytes are sniffed
   * here; when present and the bytes say otherwise, the document is refused (`unsupported_type`)
   * rather than parsed as something it is not.
   */
  readonly mimeType?: SupportedMimeType;
  /** Cancels extraction early (e.g. the job lost its lease); reported as `extraction_timeout`. */
  readonly signal?: AbortSignal;
  /** The languages OCR reads this document in (ocr/languages.ts); absent: the engine's default. */
  readonly ocrLanguages?: OcrLanguages;
}

/**
 * Page extraction as a port. The job worker's implementation runs {@link extractPages} in a child
 * process (src/jobs/extraction-pool.ts) and has the same result values; it throws when the
 * extraction had to be killed (deadline, memory cap) or its process died, which is a failed
 * attempt of the job, not a property of the document.
 */
export interface DocumentExtractor {
  extractPages(input: ExtractPagesInput): Promise<DocumentResult<ExtractedPages>>;
}

/** What renderPages asks for: PDF pages (0-based) drawn as console page images. */
export interface RenderPagesInput {
  readonly bytes: Uint8Array;
  readonly pageIndexes: readonly number[];
  readonly scale: number;
  readonly maxRenderPixels: number;
}

/** A page drawn ahead of time, with its size in pixels and in the page's own unit (PDF points). */
export interface RenderedPageImage {
  readonly pageIndex: number;
  readonly image: Uint8Array;
  readonly contentType: 'image/jpeg' | 'image/png';
  readonly widthPx: number;
  readonly heightPx: number;
  readonly pageWidth: number;
  readonly pageHeight: number;
}

/** Draws PDF pages out of this process (the extraction children), so HTTP never waits behind pdfjs. */
export interface PageRenderer {
  renderPages(input: RenderPagesInput): Promise<RenderedPageImage[]>;
}

/** The process-wide extractor a running service holds (`AppContext.extraction`). */
export interface ExtractionPool extends DocumentExtractor, PageRenderer {
  /** Kills every child; extractions in flight reject. */
  close(): Promise<void>;
  /** Process ids of the live children (for tests and metrics). */
  readonly pids: readonly number[];
}

export interface ExtractedPages {
  readonly mime_type: SupportedMimeType;
  readonly pages: readonly PageText[];
}
