/**
 * A fact's reason codes as an operator reads them. The codes stay stable in the API and the
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
};

/** One sentence for a code; a code without one is written out in words ("some_code" → "Some code."). */
export function reasonInWords(code: string): string {
  const known = REASON_WORDS[code];
  if (known !== undefined) return known;
  const words = code.replace(/_/g, ' ');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}.`;
}
