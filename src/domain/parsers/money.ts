import { fromEveryPack, LOCALE_PACKS } from '../locales/index.ts';
import { alternation, escapeRegExp, repairOcrDigits, type ParseContext, type ParsedValue } from './common.ts';

/**
 * Money → a plain decimal string with two decimals and no grouping: `$1,234.56` → "1234.56",
 * `USD 1234.5` → "1234.50", `(1,234.56)` and `-$12` → "-1234.56" / "-12.00".
 *
 * Decimal separator: with both `,` and `.` present the last one is the decimal mark
 * (`1.234,56 €` → "1234.56"). With only one kind, a separator followed by exactly three digits is
 * grouping (`1,234` and `1.234` → "1234.00": money never has three decimals) and one followed by
 * one or two digits is the decimal mark (`12,5` → "12.50"). Spaces (incl. NBSP) only group.
 * Groups must be consistent (`1,23,456` is not money). The currency is not part of the value; a
 * reading with a currency marker or exactly two decimals is trusted more than a bare integer.
 */
const CODES = fromEveryPack((pack) => pack.currencies.map((c) => c.code));
/** Symbols and abbreviations as printed, without the full stop an abbreviation may drop ("Rs." → "Rs"). */
const MARKERS = fromEveryPack((pack) => pack.currencies.flatMap((c) => c.markers.map(withoutStop)));
/** Abbreviations written with a full stop that may be left out ("Rs.", "kr.", "Dhs."). */
const STOPPED = new Set(fromEveryPack((pack) => pack.currencies.flatMap((c) => c.markers.filter((m) => m.endsWith('.')).map(withoutStop))));
const CURRENCY = `(?:${[...new Set([...MARKERS, ...CODES])]
  .sort((a, b) => b.length - a.length)
  .map((m) => escapeRegExp(m) + (STOPPED.has(m) ? '\\.?' : ''))
  .join('|')})`;
const GROUPING = fromEveryPack((pack) => pack.numbers.grouping);
/** Grouping marks that are spaces of one width or another: dropped before the digits are read. */
const SPACE_GROUPING = new RegExp(`[${GROUPING.filter((mark) => /\s/.test(mark)).join('')}]`, 'g');
const DECIMAL = `[${charClass(fromEveryPack((pack) => [pack.numbers.decimal]))}]`;
// Indian grouping first ("1,23,456.00": lakhs and crores), then thousands groups, then plain digits.
const NUMBER = String.raw`(?:\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d{1,2})?|\d{1,3}(?:(?<group>[${charClass(GROUPING)}])\d{3})(?:\k<group>\d{3})*(?:${DECIMAL}\d{1,2})?|\d+(?:${DECIMAL}\d{1,2})?)`;
const MONEY = new RegExp(
  String.raw`^(\()?\s*([-−])?\s*(${CURRENCY})?\s?([-−])?(${NUMBER})(?:\s?(${CURRENCY}))?(\))?(?![\d/:%]|[.,][\p{L}\d]|\p{L})`,
  'iu',
);

/**
 * OCR's speck read as a mark after a currency code or abbreviation ("GBP. 13,192.65", "Rs: 8,013.99"):
 * any of ":,'" after either, a full stop only after a code (an abbreviation may have its own).
 */
const SPECK_AFTER_CODE = new RegExp(`^(${alternation([...CODES, ...STOPPED])})[:,'‘’]|^(${alternation(CODES)})\\.`, 'i');

const CURRENCY_ONLY = new RegExp(String.raw`^\s*${CURRENCY}[.:]?\s*$`, 'iu');
/** A currency marker, OCR's stray mark after it, then digits: "Rs: 8,013.99", "USD 12". */
const CURRENCY_THEN_DIGITS = new RegExp(String.raw`^\s*${CURRENCY}\s?[.:,]?\s?[-−]?\d`, 'iu');

/** A cell holding only a currency marker, whose amount is in the next cell. */
export function isCurrencyMarker(text: string): boolean {
  return CURRENCY_ONLY.test(text);
}

/** Text that starts with a currency marker and an amount, however OCR marked the currency. */
export function startsWithAmount(text: string): boolean {
  return CURRENCY_THEN_DIGITS.test(text);
}

/** A money reading, with the currency marker as written ("£", "USD", "Rs.") when there was one. */
export interface MoneyReading extends ParsedValue {
  readonly currency?: string;
}

export function parseMoney(input: string, context: ParseContext): MoneyReading | null {
  const lead = input.match(/^\s*/)![0].length;
  const original = input.slice(lead);
  const repaired = context.ocr ? repairOcrDigits(leadingOne(original)) : { text: original, repaired: false };
  let read = repaired.text;
  let m = read.match(MONEY);
  if (!m && context.ocr) {
    // A speck read as a mark after a currency code ("GBP. 13,192.65", "INR: 20,617.80", "Rs: 8,013.99"): the mark
    // is dropped and the code moved one place right (same length, so offsets hold), and the
    // amount must still read as money.
    const unmarked = read.replace(SPECK_AFTER_CODE, (_, a, b) => ` ${a ?? b}`);
    if (unmarked !== read) {
      m = unmarked.match(MONEY);
      if (m) read = unmarked;
    }
  }
  if (context.ocr) {
    // OCR put a space after the decimal mark ("$24,979. 34", "7.297, 03"): thousands groups in the
    // other mark say which one is decimal. The space moves to the front (same length).
    const split = read.match(/^([^\d\s]{0,4}\s?\d{1,3}(?:([,.])\d{3})+)([.,]) (\d{2})(?!\d)/);
    if (split && split[2] !== split[3]) {
      const joined = ` ${split[1]}${split[3]}${split[4]}${read.slice(split[0].length)}`;
      const whole = joined.match(MONEY);
      if (whole) {
        m = whole;
        read = joined;
      }
    }
  }
  if (!m) return null;
  const [whole, open, sign1, prefix, sign2, number, , suffix, close] = m;
  let digits = toDecimal(number!);
  // OCR turns a decimal point into the group mark ("$4,301,90"): groups of three and then two
  // digits can only be that, so the last mark is read as the decimal one.
  const misreadDecimal = context.ocr && digits === null && /^\d{1,3}([.,])\d{3}(?:\1\d{3})*\1\d{2}$/.test(number!);
  if (misreadDecimal) digits = toDecimal(`${number!.slice(0, -3).replace(/[.,]/g, '')}.${number!.slice(-2)}`);
  if (digits === null) return null;
  // Lakh grouping is Indian notation: trusted only next to a rupee marker ("$1,23,456" is a typo).
  if (/^\d{1,2}(,\d{2})+,\d{3}/.test(number!) && currencyOfMarker(prefix ?? suffix ?? '') !== 'INR') return null;
  const negative = Boolean(sign1 || sign2 || (open && close));
  const reasons: string[] = [];
  let quality = 1;
  const hasCurrency = Boolean(prefix || suffix);
  const hasCents = /[.,]\d{2}$/.test(number!);
  if (!hasCurrency && !hasCents) quality *= 0.85;
  else if (!hasCurrency || !hasCents) quality *= 0.97;
  if (misreadDecimal || read.slice(0, whole.length) !== original.slice(0, whole.length)) {
    reasons.push('ocr_corrected_characters');
    quality *= 0.9;
  }
  // An unmatched "(" belongs to the surrounding text, not the amount: evidence starts after it.
  const skip = open && !close ? whole.indexOf(prefix ?? number!) : 0;
  return {
    value: negative && digits !== '0.00' ? `-${digits}` : digits,
    start: lead + skip,
    end: lead + whole.replace(/\s+$/, '').length,
    quality,
    reasons,
    ...(prefix || suffix ? { currency: (prefix ?? suffix)! } : {}),
  };
}

/**
 * A leading "1" that OCR read as a letter or bar standing apart from its thousands group: "I 646,32
 * SEK", "l 250,00 €" (space-grouped amounts, where a thin "1" is followed by a space anyway). Only a
 * lone look-alike before a group of three digits and a decimal or group mark; one character for one.
 */
function leadingOne(text: string): string {
  return text.replace(/^((?:[^\s\d]{1,4}\s?)?)[Il|!](?= \d{3}[ .,\u00a0]\d)/u, (_, currency: string) => `${currency}1`);
}

/** Each marker the packs print for exactly one currency, upper-cased, with that currency's code: "£" → GBP, "RS" → INR. */
const MARKER_CURRENCIES: ReadonlyMap<string, string> = (() => {
  const codes = new Map<string, Set<string>>();
  for (const pack of LOCALE_PACKS) {
    for (const currency of pack.currencies) {
      for (const marker of currency.markers) {
        const key = withoutStop(marker).toUpperCase();
        codes.set(key, (codes.get(key) ?? new Set()).add(currency.code));
      }
    }
  }
  return new Map([...codes].filter(([, named]) => named.size === 1).map(([marker, named]) => [marker, [...named][0]!]));
})();

/**
 * The ISO 4217 code a currency marker names, where it names one: "£" → GBP, "US$" → USD, "eur" →
 * EUR. A bare "$", "¥" or "kr" names several currencies, so it gives undefined.
 */
export function currencyOfMarker(marker: string): string | undefined {
  const m = marker.toUpperCase().replace(/\.$/, '');
  return MARKER_CURRENCIES.get(m) ?? (/^[A-Z]{3}$/.test(m) ? m : undefined);
}

/**
 * An amount a person typed into a form field: the whole text must be one non-negative amount
 * ("4200.50", "4,200", "£1,250", "1 250,50 €"), read by `parseMoney` without OCR repairs, so the
 * form and the documents agree on what money looks like. A marker naming another currency than
 * `currency` is refused ("USD 10" for a GBP field); one naming none ("$") is let through.
 */
export function parseTypedMoney(text: string, currency?: string): string | null {
  const typed = text.trim();
  const read = parseMoney(typed, { ocr: false, dateOrder: 'dmy', dateOrderFromDocument: false });
  if (!read || read.start !== 0 || read.end !== typed.length || read.value.startsWith('-') || /[()]/.test(typed)) return null;
  if (currency && read.currency) {
    const named = currencyOfMarker(read.currency);
    if (named !== undefined && named !== currency) return null;
  }
  return read.value;
}

function withoutStop(marker: string): string {
  return marker.replace(/\.$/, '');
}

/** Characters for a regular-expression class: "]", "\\", "^" and "-" escaped. */
function charClass(characters: readonly string[]): string {
  return characters.map((c) => c.replace(/[\]\\^-]/g, '\\$&')).join('');
}

/** The number part as "1234.56", or null when its separators are inconsistent. */
export function toDecimal(number: string): string | null {
  const compact = number.replace(SPACE_GROUPING, '');
  const lastComma = compact.lastIndexOf(',');
  const lastDot = compact.lastIndexOf('.');
  let integer: string;
  let fraction = '';
  const decimalAt = (() => {
    if (lastComma >= 0 && lastDot >= 0) return Math.max(lastComma, lastDot);
    const at = Math.max(lastComma, lastDot);
    if (at < 0) return -1;
    const sep = compact[at]!;
    const occurrences = compact.split(sep).length - 1;
    const after = compact.length - at - 1;
    return occurrences === 1 && after <= 2 ? at : -1;
  })();
  if (decimalAt >= 0) {
    integer = compact.slice(0, decimalAt);
    fraction = compact.slice(decimalAt + 1);
    if (fraction.length === 0 || fraction.length > 2 || /\D/.test(fraction)) return null;
  } else {
    integer = compact;
  }
  const groupSeparators = integer.replace(/\d/g, '');
  if (groupSeparators.length > 0) {
    if (new Set(groupSeparators).size > 1) return null;
    const separator = groupSeparators[0] === '.' ? '\\.' : groupSeparators[0]!;
    if (!new RegExp('^\\d{1,3}(' + separator + '\\d{3})+$').test(integer) && !(separator === ',' && /^\d{1,2}(,\d{2})+,\d{3}$/.test(integer))) return null;
  }
  const plain = integer.replace(/\D/g, '').replace(/^0+(?=\d)/, '') || '0';
  return `${plain}.${fraction.padEnd(2, '0')}`;
}

/**
 * The currency marker an extracted amount's quote carries ("$2,451.00" → "$", "EUR 1.200,00" →
 * "EUR"), so a person is shown the amount with the currency the document gave it.
 */
export function currencyMarkerOfQuote(quote: string): string | undefined {
  return parseMoney(quote, { ocr: false, dateOrder: 'dmy', dateOrderFromDocument: false })?.currency;
}
