/**
 * Shared vocabulary of the document-to-text half of the extraction pipeline.
 *
 * Everything here is a plain value: the API layer stores `PageText.text` as the canonical page
 * text, and every evidence offset produced later (src/domain/extraction) indexes into exactly
 * that string, so it must be persisted byte-for-byte as returned.
 */

import type { PageOrigin } from './origin.ts';

export const DOCX_MIME_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** The accepted document types of contract §9, always decided from the bytes, never a file name. */
export const SUPPORTED_MIME_TYPES = ['application/pdf', 'image/png', 'image/jpeg', DOCX_MIME_TYPE, 'text/plain'] as const;
export type SupportedMimeType = (typeof SUPPORTED_MIME_TYPES)[number];

/** How a page's canonical text was obtained; OCR pages score lower in fact extraction. */
export type PageTextMethod = 'text_layer' | 'ocr' | 'docx' | 'plain';

export interface PageText {
  /** 0-based position of the page in the document. */
  readonly page_index: number;
  /**
   * The canonical page text (see canonical-text.ts for the rules). All `char_start`/`char_end`
   * offsets are indices into this string as JavaScript counts them (UTF-16 code units).
   */
  readonly text: string;
  readonly method: PageTextMethod;
  /** Mean word confidence 0..100 reported by the OCR engine; present on OCR pages only. */
  readonly ocr_confidence?: number;
  /** The page's size in the unit of its evidence boxes; absent for plain text and DOCX. */
  readonly size?: PageSize;
  /** Where each character came from (origin.ts), for evidence `source`; not stored. */
  readonly origin?: PageOrigin;
}

/** PDF points (PDF pages, also when OCRed) or image pixels (PNG/JPEG scans, before any downscaling). */
export type PageUnit = 'pt' | 'px';

export interface PageSize {
  readonly width: number;
  readonly height: number;
  readonly unit: PageUnit;
}

/**
 * Stable snake_case reasons a document could not be turned into page text. They are values the
 * API stores on the document (`status: failed`), so never rename one.
 */
export const DOCUMENT_REASON_CODES = [
  /** The bytes are none of the accepted types (or a declared type disagrees with the bytes). */
  'unsupported_type',
  /** Over the 20 MB limit, an image/page whose pixel size would exhaust memory when decoded, a
   * DOCX declaring too much uncompressed content, or more text than a document can sensibly hold. */
  'too_large',
  /** Zero bytes. */
  'empty_document',
  /** The bytes claim a supported type but cannot be parsed as one. */
  'corrupt_document',
  /** A PDF that needs a password to open. */
  'encrypted_pdf',
  /** More pages than the configured limit. */
  'too_many_pages',
  /** Parsed fine, but neither the text layer nor OCR produced any text. */
  'no_text_found',
  /** The whole document took longer than the configured deadline. */
  'extraction_timeout',
  /** The OCR engine itself failed (not the image): infrastructure, worth a retry. */
  'ocr_failed',
  /**
   * Extraction was killed or crashed on every attempt (memory cap, a stuck parser past the
   * deadline, the worker process dying): the document is given up on, so the case can move on.
   */
  'extraction_aborted',
] as const;
export type DocumentReasonCode = (typeof DOCUMENT_REASON_CODES)[number];

export interface DocumentFailure {
  readonly ok: false;
  readonly reason_code: DocumentReasonCode;
  /** Human detail for logs and operators; never contains document text. */
  readonly message: string;
}

export type DocumentResult<T> = { readonly ok: true; readonly value: T } | DocumentFailure;

export function documentOk<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function documentFailure(reason_code: DocumentReasonCode, message: string): DocumentFailure {
  return { ok: false, reason_code, message };
}

/**
 * Contract §9: documents over 20 MB are refused. Binary megabytes (20 MiB = 20,971,520 bytes) so a
 * file any operating system displays as "20 MB" is accepted; the stricter reading would refuse
 * files Windows shows as 19.1 MB.
 */
export const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;
