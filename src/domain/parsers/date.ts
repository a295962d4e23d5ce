import { DIGIT_LOOK_ALIKES, repairOcrDigits, type DateOrder, type ParseContext, type ParsedValue } from './common.ts';

/**
 * Dates → ISO `YYYY-MM-DD`, from the ways people write them on pay stubs and bills:
 *   2026-03-14 · 2026/03/14 · 03/14/2026 · 14/03/2026 · 14.03.2026 · 3-14-26 · March 14, 2026 ·
 *   Mar 14 2026 · Mar. 14th, 2026 · 14 March 2026 · 14-Mar-2026 · 14 Mar 26 · Saturday, March 14, 2026
 *
 * Day/month order of all-numeric dates: a part > 12 decides it. When both parts are ≤ 12 and
 * differ, the order comes from, in turn: a format hint next to the label ("(DD/MM/YYYY)"), the
 * other numeric dates in the same document (any unambiguous one decides for the whole document),
 * and finally the configured default (`mdy`: the shipped case types are US pay stubs and bills).
 * A date read by the default carries `ambiguous_date_order` and a lower quality, so it is visible
 * to reviewers and loses against an unambiguous reading of the same fact.
 *
 * Two-digit years are 2000–2069 for 00–69 and 1970–1999 for 70–99 (`two_digit_year`).
 * Impossible dates (Feb 30, month 13) are not dates.
 */

const MONTHS: Record<string, number> = {
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6, june: 6,
  jul: 7, july: 7, aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10, nov: 11, november: 11,
  dec: 12, december: 12,
  // French, German, Portuguese and Danish names and their usual abbreviations (day-first locales).
  janv: 1, janvier: 1, 'févr': 2, fevr: 2, 'février': 2, fevrier: 2, mars: 3, avr: 4, avril: 4, mai: 5, juin: 6,
  juil: 7, juillet: 7, 'août': 8, aout: 8, septembre: 9, octobre: 10, novembre: 11, 'déc': 12, 'décembre': 12, decembre: 12,
  januar: 1, 'jänner': 1, februar: 2, 'märz': 3, 'mär': 3, maerz: 3, juni: 6, juli: 7, okt: 10, oktober: 10, dez: 12, dezember: 12,
  janeiro: 1, fev: 2, fevereiro: 2, 'março': 3, marco: 3, abr: 4, abril: 4, maio: 5, junho: 6, julho: 7, ago: 8, agosto: 8,
  set: 9, setembro: 9, out: 10, outubro: 10, novembro: 11, dezembro: 12,
  marts: 3, maj: 5,
  // Dutch, Spanish, Italian and Swedish; Polish in the genitive dates use and the nominative.
  januari: 1, februari: 2, maart: 3, mei: 5, augustus: 8, augusti: 8,
  enero: 1, febrero: 2, marzo: 3, mayo: 5, junio: 6, julio: 7, septiembre: 9, setiembre: 9, octubre: 10, noviembre: 11, diciembre: 12,
  gennaio: 1, febbraio: 2, aprile: 4, maggio: 5, giugno: 6, luglio: 7, settembre: 9, ottobre: 10, dicembre: 12,
  stycznia: 1, lutego: 2, marca: 3, kwietnia: 4, maja: 5, czerwca: 6, lipca: 7, sierpnia: 8, 'września': 9, wrzesnia: 9,
  'października': 10, pazdziernika: 10, listopada: 11, grudnia: 12,
  'styczeń': 1, luty: 2, marzec: 3, 'kwiecień': 4, czerwiec: 6, lipiec: 7, 'sierpień': 8, 'wrzesień': 9, 'październik': 10, listopad: 11, 'grudzień': 12,
};
// Longest names first so "september" is not read as "sep" + "tember".
const MONTH = `(${Object.keys(MONTHS).sort((a, b) => b.length - a.length).join('|')})\\.?`;
const WEEKDAY = '(?:(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|urday|rsday)?\\.?,?\\s+)?';
const ORDINAL = '(?:st|nd|rd|th)?';

// A space around a separator is allowed: OCR inserts one after a period ("13. 11.2026").
const ISO = /^(\d{4}) ?([-/.]) ?(\d{1,2}) ?\2 ?(\d{1,2})(?!\d)/;
const NUMERIC = /^(\d{1,2}) ?([-/.]) ?(\d{1,2}) ?\2 ?(\d{4}|\d{2})(?!\d)/;
const MONTH_FIRST = new RegExp(`^${WEEKDAY}${MONTH}[\\s-]+(\\d{1,2})${ORDINAL}(?:,\\s*|\\s+|-)(\\d{4}|\\d{2})(?!\\d)`, 'i');
const DAY_FIRST = new RegExp(`^${WEEKDAY}(\\d{1,2})(?:${ORDINAL}|\\.|er)(?:\\s+(?:of|de))?[\\s-]+${MONTH}(?:,\\s*|[\\s-]+)(?:de\\s+)?(\\d{4}|\\d{2})(?!\\d)`, 'i');
const YEAR_MONTH_DAY = new RegExp(`^(\\d{4})[\\s-]+${MONTH}[\\s-]+(\\d{1,2})(?!\\d)`, 'i');

/** OCR only: day and month with two different separators (one misread), then a four-digit year. */
const NUMERIC_MIXED_SEPARATORS = /^(\d{1,2}) ?[-/.:,] ?(\d{1,2}) ?[-/.:,] ?(\d{4})(?!\d)/;
/** OCR only: a day of two digits and one more where its full stop was, then a month name. */
const DAY_DOT_MISREAD = new RegExp(`^(\\d{2})\\d\\s+${MONTH}\\s+(\\d{4})(?!\\d)`, 'i');
/**
 * OCR only: a day and a month name that OCR joined ("20janvier 2025") or parted with a comma for
 * its full stop ("9, February 2024"); the month name and the calendar confirm the reading.
 */
const DAY_FIRST_OCR = new RegExp(`^(\\d{1,2})(?:,\\s*|\\.?(?=\\p{L}))${MONTH}[\\s,]+(\\d{4})(?!\\d)`, 'iu');
/** OCR only: digits, separators and spaces that may be a numeric date OCR split apart. */
const SPLIT_NUMERIC = /^\d[\d ./-]{6,12}\d(?![\d])/;

/**
 * A split date's span with its lone look-alikes read as digits ("2025- i 1-04": a "1" read as "i"
 * and parted from its neighbour), one character for one, so offsets hold.
 */
function splitDigits(text: string): string {
  return text.replace(/^\d[\d\s./\-OoIil|!]{6,14}/, (span) => span.replace(/[OoIil|!]/g, (c) => DIGIT_LOOK_ALIKES[c]!));
}

export function parseDate(input: string, context: ParseContext): ParsedValue | null {
  const lead = input.match(/^\s*/)![0].length;
  const original = input.slice(lead);
  const repaired = context.ocr ? repairOcrDigits(original) : { text: original, repaired: false };
  const text = repaired.text;
  const reasons: string[] = [];
  let quality = 1;

  let year: number, month: number, day: number, length: number;
  let m: RegExpMatchArray | null;
  if ((m = text.match(ISO))) {
    [year, month, day] = [Number(m[1]), Number(m[3]), Number(m[4])];
    length = m[0].length;
  } else if ((m = text.match(NUMERIC))) {
    const a = Number(m[1]);
    const b = Number(m[3]);
    year = expandYear(m[4]!, reasons);
    length = m[0].length;
    const order = numericOrder(a, b, context);
    if (order.ambiguous) {
      if (context.dateOrderFromDocument) {
        reasons.push('date_order_from_document');
        quality *= 0.97;
      } else {
        reasons.push('ambiguous_date_order');
        quality *= 0.9;
      }
    }
    [month, day] = order.order === 'mdy' ? [a, b] : [b, a];
  } else if ((m = text.match(MONTH_FIRST))) {
    month = MONTHS[m[1]!.toLowerCase()]!;
    day = Number(m[2]);
    year = expandYear(m[3]!, reasons);
    length = m[0].length;
  } else if ((m = text.match(DAY_FIRST))) {
    day = Number(m[1]);
    month = MONTHS[m[2]!.toLowerCase()]!;
    year = expandYear(m[3]!, reasons);
    length = m[0].length;
  } else if ((m = text.match(YEAR_MONTH_DAY))) {
    year = Number(m[1]);
    month = MONTHS[m[2]!.toLowerCase()]!;
    day = Number(m[3]);
    length = m[0].length;
  } else if (context.ocr && (m = text.match(NUMERIC_MIXED_SEPARATORS))) {
    // "12.02:2024": OCR read one of the two separators as another mark.
    const a = Number(m[1]);
    const b = Number(m[2]);
    year = Number(m[3]);
    length = m[0].length;
    const order = numericOrder(a, b, context);
    if (order.ambiguous) reasons.push(context.dateOrderFromDocument ? 'date_order_from_document' : 'ambiguous_date_order');
    [month, day] = order.order === 'mdy' ? [a, b] : [b, a];
    reasons.push('ocr_corrected_characters');
    quality *= order.ambiguous ? 0.8 : 0.85;
  } else if (context.ocr && (m = text.match(DAY_FIRST_OCR) ?? text.match(DAY_DOT_MISREAD))) {
    // Day, month name, year, with OCR's mark between the first two: joined or a comma (0.9), or
    // the full stop of "17." read as a digit, "175 februar 2026" (0.85).
    day = Number(m[1]);
    month = MONTHS[m[2]!.toLowerCase()]!;
    year = Number(m[3]);
    length = m[0].length;
    reasons.push('ocr_corrected_characters');
    quality *= DAY_FIRST_OCR.test(text) ? 0.9 : 0.85;
  } else if (context.ocr && (m = splitDigits(text).match(SPLIT_NUMERIC)) && /\s/.test(m[0]) && m[0].replace(/\D/g, '').length === 8) {
    // "2025-1 220": OCR moved a separator and split the date with a space. Read as the eight
    // digits of a year-first or year-last date, only when the calendar accepts them.
    const digits = m[0].replace(/\D/g, '');
    length = m[0].length;
    if (/^\d{4}[-/.]/.test(m[0]) && /^(19|20)/.test(digits)) {
      [year, month, day] = [Number(digits.slice(0, 4)), Number(digits.slice(4, 6)), Number(digits.slice(6))];
    } else if (/(19|20)\d\d$/.test(digits)) {
      const a = Number(digits.slice(0, 2));
      const b = Number(digits.slice(2, 4));
      year = Number(digits.slice(4));
      const order = numericOrder(a, b, context);
      [month, day] = order.order === 'mdy' ? [a, b] : [b, a];
    } else {
      return null;
    }
    reasons.push('ocr_corrected_characters');
    quality *= 0.85;
  } else {
    return null;
  }
  if (reasons.includes('two_digit_year')) quality *= 0.95;
  if (repaired.repaired && text.slice(0, length) !== original.slice(0, length) && !reasons.includes('ocr_corrected_characters')) {
    reasons.push('ocr_corrected_characters');
    quality *= 0.9;
  }
  if (!isValidDate(year, month, day)) return null;
  // Evidence starts at the date itself, not at a weekday name in front of it.
  const weekday = text.slice(0, length).match(new RegExp(`^${WEEKDAY}`, 'i'))![0].length;
  return {
    value: `${String(year).padStart(4, '0')}-${pad(month)}-${pad(day)}`,
    start: lead + weekday,
    end: lead + length,
    quality,
    reasons,
  };
}

function numericOrder(a: number, b: number, context: ParseContext): { order: DateOrder; ambiguous: boolean } {
  if (a > 12 && b <= 12) return { order: 'dmy', ambiguous: false };
  if (b > 12 && a <= 12) return { order: 'mdy', ambiguous: false };
  if (a === b) return { order: context.dateOrder, ambiguous: false };
  return { order: context.dateOrder, ambiguous: true };
}

function expandYear(text: string, reasons: string[]): number {
  if (text.length === 4) return Number(text);
  reasons.push('two_digit_year');
  const n = Number(text);
  return n < 70 ? 2000 + n : 1900 + n;
}

function isValidDate(year: number, month: number, day: number): boolean {
  if (!(year >= 1900 && year <= 2100 && month >= 1 && month <= 12 && day >= 1)) return false;
  const days = [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day <= days;
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * The document's own day/month order, from the strongest signal it contains:
 *   1. its unambiguous all-numeric dates: `dmy` if some date has a first part > 12 and none has a
 *      second part > 12, `mdy` for the reverse;
 *   2. the way it writes dates in words: "14 March 2026" (day first) vs "March 14, 2026";
 *   3. its currency and postcodes: £ / GBP / € or a UK postcode → `dmy`, $ / USD with a US
 *      "ST 12345" ZIP → `mdy`.
 * Undefined when there is no signal or the signals of the strongest level contradict each other.
 */
export function inferDateOrder(texts: readonly string[]): DateOrder | undefined {
  const text = texts.join('\n');
  const decide = (dmy: boolean, mdy: boolean): DateOrder | undefined | null =>
    dmy && !mdy ? 'dmy' : mdy && !dmy ? 'mdy' : dmy && mdy ? undefined : null;

  let dmy = false;
  let mdy = false;
  for (const m of text.matchAll(/(?<![\d/.-])(\d{1,2})([/.-])(\d{1,2})\2(?:\d{4}|\d{2})(?![\d/.-])/g)) {
    const a = Number(m[1]);
    const b = Number(m[3]);
    if (a > 12 && a <= 31 && b >= 1 && b <= 12) dmy = true;
    if (b > 12 && b <= 31 && a >= 1 && a <= 12) mdy = true;
  }
  const numeric = decide(dmy, mdy);
  if (numeric !== null) return numeric;

  const month = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\\.?';
  const written = decide(
    // Day first, in any of the languages MONTH knows: "14 March 2026", "14. März 2026", "14 de março de 2026".
    new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th|\\.|er)?(?:\\s+de)?[\\s-]+${MONTH}[\\s-]+(?:de\\s+)?\\d{2,4}\\b`, 'i').test(text),
    new RegExp(`\\b${month}\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}\\b`, 'i').test(text),
  );
  if (written !== null) return written;

  // Everywhere but the US writes the day first. The currency the amounts are in says where the
  // document was issued; addresses come second, because a mailing address or a PO box printed on
  // a bill can be abroad ("Amount due: 158,77 €" beside "PO Box 3648, Springfield, IL 62701").
  const currency = decide(/[£€₹]|\b(?:GBP|EUR|DKK|INR|AED|Rs\.|kr\.|Dhs)/.test(text), /\$|\bUSD\b/.test(text));
  if (currency) return currency;
  const regional = decide(
    // UK postcodes, IBANs, and postcode-before-city lines ("1200-195 Lisboa", "1165 København K").
    /\b[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b|\b[A-Z]{2}\d{2}(?: ?[A-Z\d]{4}){3,}/.test(text) ||
      /^(?:\d{4}-\d{3}|\d{4,5}) \p{Lu}\p{L}+(?: [A-Z])?$/mu.test(text),
    /\b[A-Z]{2}\s\d{5}(?:-\d{4})?\b/.test(text),
  );
  return regional ?? undefined;
}

/** A format hint written next to a label: "(DD/MM/YYYY)", "[mm-dd-yy]". */
export function dateOrderHint(text: string): DateOrder | undefined {
  const m = text.match(/\b(dd|d)[/.-](mm|m)[/.-](yyyy|yy)\b|\b(mm|m)[/.-](dd|d)[/.-](yyyy|yy)\b/i);
  if (!m) return undefined;
  return m[1] ? 'dmy' : 'mdy';
}
