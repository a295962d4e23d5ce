import type { Timestamp } from './types.ts';

/**
 * A page of a document drawn as an image for the operator console, kept once per page: PDF
 * pages are rendered with pdfjs (tens to hundreds of milliseconds each), images are stored as
 * they came. Erased with the document.
 */
export interface DocumentPageImagesTable {
  doc_id: string;
  page_index: number;
  content_type: string;
  /** Size of the image in pixels. */
  width_px: number;
  height_px: number;
  /** Size of the page in its own unit (PDF points, image pixels): evidence boxes use it. */
  page_width: number;
  page_height: number;
  page_unit: 'pt' | 'px';
  /** The image when it lives in the database; null when it is an object (`object_key`). */
  bytes: Buffer | null;
  /** The encrypted image in the object store, under its document's data key. */
  object_key: string | null;
  created_at: Timestamp;
}

export interface ConsoleTables {
  document_page_images: DocumentPageImagesTable;
}
