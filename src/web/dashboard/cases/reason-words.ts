import { humanize } from './format.ts';

/**
 * A fact's reason codes, and a document's failure reason, as an operator reads them. The codes stay stable in the API and the
 * package; the case page says what they mean and keeps the codes themselves in a details element
 * (issue 27 §1: rule ids and method names only inside details).
 */
const REASON_WORDS: Record<string, string> = {
  // Extraction (domain/extraction/types.ts).
  not_found: 'Not found in the documents.',
  unparseable_value: 'Found, but the value could not be read as its type.',
  conflicting_candidates: 'The documents give different values.',
  low_confidence: 'Read with low confidence: confirm it against the page.',
  fuzzy_anchor: 'The label on the page differs a little from the expected one.',
  anchor_not_at_label_start: 'The label was found inside a longer label.',
  value_on_next_line: 'The value is on the line below its label.',
  ocr_text: 'Read from a scan or photo.',
  ocr_corrected_characters: 'Letters the scan misread were corrected.',
  ambiguous_date_order: 'The date could be read day-first or month-first.',
  date_order_from_document: 'Day and month order taken from the document’s other dates.',
  two_digit_year: 'The year was written with two digits.',
  single_word_name: 'The name is a single word.',
  address_without_postal_code: 'The address has no postcode.',
  // Gates (domain/cases/plan-workflow.ts).
  missing_value: 'A check needs this value and it is missing.',
  fact_failed: 'A check on this value failed.',
  not_a_date: 'A check needs a date here.',
  date_in_future: 'The date is in the future.',
  older_than_allowed: 'The date is older than the check allows.',
  input_missing: 'The applicant’s answer to compare with is missing.',
  input_mismatch: 'The value does not match the applicant’s answer.',
  not_a_number: 'A check needs a number here.',
  below_minimum: 'Below the minimum the check allows.',
  above_maximum: 'Above the maximum the check allows.',
  not_an_allowed_value: 'Not one of the values the check allows.',
  // Erasure (domain/erasure/erase.ts).
  erased: 'Its document was erased, and the value with it.',
};

const DOCUMENT_FAILURE_WORDS: Record<string, string> = {
  // Reading (domain/documents/extract-pages.ts).
  corrupt_document: 'The file is damaged and could not be opened.',
  empty_document: 'The file is empty.',
  encrypted_pdf: 'The PDF is password-protected.',
  extraction_timeout: 'Reading the document took too long.',
  no_text_found: 'No text could be read: a blank page, or a photo too blurred to read.',
  ocr_failed: 'The scan could not be read.',
  too_large: 'The file is larger than the limit.',
  too_many_pages: 'The document has more pages than the limit.',
  unsupported_type: 'This kind of file is not accepted.',
  // Fetching a document by URL (domain/processing/document-job.ts).
  fetch_blocked_address: 'Its URL points to an address Dossier may not fetch from.',
  fetch_connection_failed: 'Its URL could not be reached.',
  fetch_failed: 'It could not be fetched from its URL.',
  fetch_http_error: 'Its URL answered with an error.',
  fetch_invalid_url: 'Its URL is not valid.',
  fetch_redirected: 'Its URL redirected, which is not followed.',
  fetch_timeout: 'Fetching it from its URL took too long.',
};

/** One sentence for a fact's reason code; a code without one is written out in words ("some_code" → "Some code."). */
export function reasonInWords(code: string): string {
  return REASON_WORDS[code] ?? `${humanize(code)}.`;
}

/** One sentence for why a document failed, the same way. */
export function documentFailureInWords(code: string): string {
  return DOCUMENT_FAILURE_WORDS[code] ?? `${humanize(code)}.`;
}
