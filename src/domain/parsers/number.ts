import { repairOcrDigits, type ParseContext, type ParsedValue } from './common.ts';

/**
 * Numbers → a plain decimal string without grouping, as written otherwise ("1,234.50" → "1234.50",
 * "40" → "40", "-3.5" → "-3.5"). Comma grouping only; a comma followed by one or two digits is a
 * decimal comma ("12,5" → "12.5"). Not a number when a date, time or percentage starts here.
 */
const NUMBER = /^([-−+])?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?)(?![\d/:]|[.,]\d|\p{L})/u;

export function parseNumber(input: string, context: ParseContext): ParsedValue | null {
  const lead = input.match(/^\s*/)![0].length;
  const original = input.slice(lead);
  const repaired = context.ocr ? repairOcrDigits(original) : { text: original, repaired: false };
  const m = repaired.text.match(NUMBER);
  if (!m) return null;
  const [whole, sign, body] = m;
  let value: string;
  if (/^\d+,\d{1,2}$/.test(body!)) value = body!.replace(',', '.');
  else if (/^\d+,\d+$/.test(body!)) return null; // "12,3456": neither grouping nor a decimal we trust
  else value = body!.replace(/,/g, '');
  value = value.replace(/^0+(?=\d)/, '');
  const reasons: string[] = [];
  let quality = 1;
  if (repaired.repaired && repaired.text.slice(0, whole.length) !== original.slice(0, whole.length)) {
    reasons.push('ocr_corrected_characters');
    quality *= 0.9;
  }
  return { value: sign === '-' || sign === '−' ? `-${value}` : value, start: lead, end: lead + whole.length, quality, reasons };
}
