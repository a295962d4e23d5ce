import { fromEveryPack, LOCALE_PACKS } from '../locales/index.ts';
import { alternation, DIGIT_LOOK_ALIKES, repairOcrDigits, type DateOrder, type ParseContext, type ParsedValue } from './common.ts';

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

/** Month names of every locale pack, each with its month; packs agree where they share a name (test/extraction/locale-packs.test.ts). */
const PACK_MONTHS: Readonly<Record<string, number>> = Object.assign({}, ...LOCALE_PACKS.map((pack) => pack.dates.months));
/**
 * The month names as read without their marks: OCR drops them ("20. Marz 2024", "3 fevrier
 * 2026", "14 pazdziernika"), and so do systems that print ASCII only. A bare form is added only
 * where it names no other month in any pack.
 */
const MONTHS: Readonly<Record<string, number>> = (() => {
  const months: Record<string, number> = { ...PACK_MONTHS };
  for (const [name, month] of Object.entries(PACK_MONTHS)) {
    const bare = name.normalize('NFD').replace(/\p{M}/gu, '').normalize('NFC');
    if (bare === name) continue;
    if (months[bare] === undefined) months[bare] = month;
    else if (months[bare] !== month) throw new Error(`month name "${bare}" read without its marks is ambiguous`);
  }
  return months;
})();
const MONTH = `(${alternation(Object.keys(MONTHS))})\\.?`;
const WEEKDAY = `(?:(?:${alternation(fromEveryPack((pack) => pack.dates.weekdays))})\\.?,?\\s+)?`;
/** What may follow a day's number: the packs' suffixes ("14th", "1er"), or a full stop in any language ("14. März"). */
const DAY_SUFFIX = `(?:${alternation(fromEveryPack((pack) => pack.dates.daySuffixes))})`;
/** Words between day, month and year: "14th of March", "14 de março de 2026". */
const JOINER = `(?:${alternation(fromEveryPack((pack) => pack.dates.joiners))})`;
/** Month names of the languages that write the month first in words ("March 14, 2026"). */
const MONTH_BEFORE_DAY = `(?:${alternation(LOCALE_PACKS.filter((pack) => pack.dates.monthBeforeDay).flatMap((pack) => Object.keys(pack.dates.months)))})\\.?`;

// A space around a separator is allowed: OCR inserts one after a period ("13. 11.2026").
const ISO = /^(\d{4}) ?([-/.]) ?(\d{1,2}) ?\2 ?(\d{1,2})(?!\d)/;
const NUMERIC = /^(\d{1,2}) ?([-/.]) ?(\d{1,2}) ?\2 ?(\d{4}|\d{2})(?!\d)/;
const MONTH_FIRST = new RegExp(`^${WEEKDAY}${MONTH}[\\s-]+(\\d{1,2})${DAY_SUFFIX}?(?:,\\s*|\\s+|-)(\\d{4}|\\d{2})(?!\\d)`, 'i');
const DAY_FIRST = new RegExp(`^${WEEKDAY}(\\d{1,2})(?:${DAY_SUFFIX}|\\.)?(?:\\s+${JOINER})?[\\s-]+${MONTH}(?:,\\s*|[\\s-]+)(?:${JOINER}\\s+)?(\\d{4}|\\d{2})(?!\\d)`, 'i');
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

  const written = decide(
    // Day first, in any of the languages MONTH knows: "14 March 2026", "14. März 2026", "14 de março de 2026".
    new RegExp(`\\b\\d{1,2}(?:${DAY_SUFFIX}|\\.)?(?:\\s+${JOINER})?[\\s-]+${MONTH}[\\s-]+(?:${JOINER}\\s+)?\\d{2,4}\\b`, 'i').test(text),
    new RegExp(`\\b${MONTH_BEFORE_DAY}\\s+\\d{1,2}${DAY_SUFFIX}?,?\\s+\\d{4}\\b`, 'i').test(text),
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
