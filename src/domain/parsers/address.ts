/**
 * Postal addresses, possibly over several lines. The extractor hands over the first piece (the
 * text after the anchor, or the cell under it) and the pieces of the following lines in the same
 * column; this decides how many of them are the address.
 *
 * The first piece must look like the start of an address: a house number, a PO box, a flat/unit,
 * or a street word. Following lines are taken while they look like address lines — a digit, a
 * "City, State/Region" shape, a postal code — and a line without those is taken only when the next
 * one ends in a postal code (UK "London" above "SW1A 1AA"). A label, an empty line, or a postal
 * code at the end of the previous line ends the address; at most 5 lines.
 *
 * The value is the lines joined with ", " (trailing commas dropped); evidence is one span per line.
 */
import { fromEveryPack } from '../locales/index.ts';
import { alternation } from './common.ts';

export interface AddressPiece { readonly text: string; readonly start: number; }

export interface ParsedAddress {
  readonly value: string;
  /** Absolute spans, one per line used. */
  readonly spans: ReadonlyArray<{ start: number; end: number }>;
  readonly quality: number;
  readonly reasons: readonly string[];
}

/** Words on their own: no letter or digit on either side (`\b` knows only ASCII letters: "Ålane" is no lane). */
const word = (words: string) => `(?<![\\p{L}\\p{N}])(?:${words})(?![\\p{L}\\p{N}])`;
const STREET_ENDINGS = alternation(fromEveryPack((pack) => pack.streets.endings));
/** A street word ("Road", "rue", "Avenida") or the end of a one-word street ("Hauptstraße", "Storgatan"). */
const STREET_WORDS = new RegExp(`${word(alternation(fromEveryPack((pack) => pack.streets.words)))}\\.?|(?:${STREET_ENDINGS})(?![\\p{L}\\p{N}])`, 'iu');
/**
 * Street abbreviations and words written before the street's name: Polish "ul. Długa", Spanish
 * "C/ Mayor", Italian "Via Roma". The packs write them with their mark; any of ". / space" may follow.
 */
const STREET_PREFIX = new RegExp(`^(?:${alternation(fromEveryPack((pack) => pack.streets.before.map((w) => w.replace(/[./]$/, ''))))})(?:\\.|\\/|\\s)\\s*\\p{L}`, 'iu');
/** A one-word street and its number: "Keizersgracht 12", "Storgatan 3". */
const STREET_SUFFIX = new RegExp(`^\\p{Lu}\\p{L}*(?:${STREET_ENDINGS})\\s+\\d`, 'u');
const UNITS = alternation(fromEveryPack((pack) => pack.streets.units));
const ADDRESS_START = new RegExp(`^(\\d+[\\p{L}]?(?:[-–/]\\d+[\\p{L}]?)?,?\\s+\\S|p\\.?\\s*o\\.?\\s*box\\b|(${UNITS})\\.?\\s*#?\\s*\\w)`, 'iu');
const POSTCODES = fromEveryPack((pack) => pack.postcodes);
/**
 * A line that ends an address with a postcode after the city: US "IL 62704" / ", 62704-1234", UK
 * "SW1A 1AA", Canada "K1A 0B1", Ireland "D02 X285", India "Bengaluru 560001" (see the packs).
 */
const POSTAL_LINE = new RegExp(
  POSTCODES.filter((code) => code.placement === 'after city').map((code) => `(?:${code.pattern})\\.?$`).join('|'),
  'u',
);
/** Continental "75001 Paris" looks like a house number and a street ("2397 Cedar Lane"), so it
 * only counts after the first line and without a street word. A country prefix may lead ("D-10115"). */
const CONTINENTAL_POSTCODE = `(?:[A-Z]{1,2}-)?(?:${[...new Set(POSTCODES.filter((code) => code.placement === 'before city').map((code) => code.pattern))].join('|')})`;
const CONTINENTAL_POSTAL_LINE = new RegExp(String.raw`^${CONTINENTAL_POSTCODE}\s+\p{Lu}\p{L}+(?:[ ,-]+\p{L}+)*\.?$`, 'u');
/** The same postcode-first shape at the end of a one-line address: "Rua Augusta 25, 1200-195 Lisboa". */
const CONTINENTAL_POSTAL_TAIL = new RegExp(String.raw`,\s*${CONTINENTAL_POSTCODE}\s+\p{Lu}\p{L}+(?:[ -]+\p{L}+)*\.?$`, 'u');
/** A street name before its number, as most of Europe writes it: "Rua Augusta 25", "Hauptstraße 5b". */
const NUMBER_AFTER_STREET = /^\p{Lu}[\p{L}.'’ -]{2,40}\s\d{1,4}[\p{L}]?(?:[,\s]|$)/u;
/** A line that is only a place name, as the last line of an address with no postcode ("Dubai"). */
const PLACE_ONLY = /^\p{Lu}[\p{L}.'’-]*(?: \p{Lu}[\p{L}.'’-]*){0,2}$/u;
/** Lines with these are values of other fields (amounts, dates, contact details), never address lines. */
const NOT_ADDRESS = new RegExp(
  [
    // Currency symbols and codes, not abbreviations made of letters: "Ft" is also "Fort".
    alternation(fromEveryPack((pack) => pack.currencies.flatMap((c) => c.markers.filter((marker) => !/^[\p{L}.]+$/u.test(marker))))),
    word(alternation(fromEveryPack((pack) => pack.currencies.map((c) => c.code)))),
    String.raw`\d{1,4}[./]\d{1,2}[./]\d{2,4}|@|https?:|www\.`,
    word(alternation(fromEveryPack((pack) => pack.labels.notInAddresses))),
  ].join('|'),
  'iu',
);

function isPostalLine(text: string, first: boolean): boolean {
  return POSTAL_LINE.test(text) || CONTINENTAL_POSTAL_TAIL.test(text) || (!first && CONTINENTAL_POSTAL_LINE.test(text) && !STREET_WORDS.test(text));
}
const CITY_REGION = /^[\p{Lu}][\p{L} .'’-]+,\s*[\p{Lu}][\p{L} .'’-]*$/u;
const LABEL_LIKE = /^[\p{L}][\p{L} .'’#/-]{0,30}:(\s|$)|:$/u;
const MAX_LINES = 5;

/** OCR look-alikes of the digits a UK postcode must have in its digit places. */
const POSTCODE_DIGIT_LOOK_ALIKES: Record<string, string> = { I: '1', l: '1', O: '0', S: '5', Z: '2', B: '8' };
const UK_POSTCODE_OCR = /^(\s*[A-Z]{1,2})([\dIlOSZB])([A-Z\d]?\s?)([\dIlOSZB])([A-Z]{2}\.?\s*)$/;
/** The same postcode at the end of a line after its town ("London SW1A SEX"), its two parts spaced as printed. */
const UK_POSTCODE_OCR_AFTER_TOWN = /^(.*\p{L},?\s+[A-Z]{1,2})([\dIlOSZB])([A-Z\d]?\s)([\dIlOSZB])([A-Z]{2}\.?\s*)$/u;

/**
 * A line that is a UK postcode once OCR look-alikes in its two digit places are digits ("MI 3NP",
 * "SWIA 4HJ"): the postcode's own shape says which characters are digits. Same length, so offsets
 * hold. Lines that are not postcode-shaped come back unchanged.
 */
function repairOcrPostcode(text: string): string {
  const m = text.match(UK_POSTCODE_OCR) ?? text.match(UK_POSTCODE_OCR_AFTER_TOWN);
  if (!m) return text;
  const digit = (c: string) => POSTCODE_DIGIT_LOOK_ALIKES[c] ?? c;
  return `${m[1]}${digit(m[2]!)}${m[3]}${digit(m[4]!)}${m[5]}`;
}

export function parseAddress(first: AddressPiece, following: readonly (AddressPiece | null)[], ocr = false): ParsedAddress | null {
  const repaired = new Set<AddressPiece>();
  if (ocr) {
    following = following.map((piece) => {
      if (!piece) return piece;
      const text = repairOcrPostcode(piece.text);
      if (text === piece.text) return piece;
      const fixed = { ...piece, text };
      repaired.add(fixed);
      return fixed;
    });
  }
  if (ocr) {
    // A one-line address ends in its postcode too: "155 Mill Road, Leeds LS6 ZQT".
    const text = first.text.replace(UK_POSTCODE_OCR_AFTER_TOWN, (_, a: string, b: string, c: string, d: string, e: string) => `${a}${POSTCODE_DIGIT_LOOK_ALIKES[b] ?? b}${c}${POSTCODE_DIGIT_LOOK_ALIKES[d] ?? d}${e}`);
    if (text !== first.text) {
      first = { ...first, text };
      repaired.add(first);
    }
    // The ordinal of a floor or door ("3º C", "8º izda.", "2ª") is read as a degree sign, which
    // no address has: after a number it is the ordinal. One character for one.
    const ordinal = (piece: AddressPiece): AddressPiece => {
      const fixed = piece.text.replace(/(?<=\d)°/gu, 'º');
      if (fixed === piece.text) return piece;
      const out = { ...piece, text: fixed };
      if (repaired.has(piece)) repaired.add(out);
      return out;
    };
    first = ordinal(first);
    following = following.map((piece) => (piece ? ordinal(piece) : piece));
  }
  const firstText = first.text.trim();
  if (firstText === '' || LABEL_LIKE.test(firstText)) return null;
  if (
    !ADDRESS_START.test(firstText) &&
    !STREET_WORDS.test(firstText) &&
    !POSTAL_LINE.test(firstText) &&
    !NUMBER_AFTER_STREET.test(firstText) &&
    !STREET_PREFIX.test(firstText) &&
    !STREET_SUFFIX.test(firstText)
  ) return null;
  const lines: AddressPiece[] = [first];
  if (ocr) {
    // A line of specks alone (".", "' ,") between two lines of an address is dust, not a line.
    following = following.filter((piece) => !piece || /[\p{L}\p{N}]/u.test(piece.text) || piece.text.trim().length > 3);
  }
  for (let i = 0; i < following.length && lines.length < MAX_LINES; i++) {
    if (isPostalLine(lines[lines.length - 1]!.text.trim(), lines.length === 1)) break;
    const piece = following[i];
    if (!piece) break;
    const text = piece.text.trim();
    if (text === '' || text.length > 80 || LABEL_LIKE.test(text)) break;
    const next = following[i + 1]?.text.trim() ?? '';
    if (NOT_ADDRESS.test(text)) break;
    // A line of digits alone is another field's value (a meter or account number), unless it is a postcode.
    if (/^[\d\s./-]+$/.test(text) && !/^\d{4,6}$/.test(text)) break;
    const ends = next === '' || LABEL_LIKE.test(next) || NOT_ADDRESS.test(next);
    const addressy =
      /\d/.test(text) ||
      CITY_REGION.test(text) ||
      STREET_WORDS.test(text) ||
      (/^[\p{Lu}][\p{L} .'’-]{1,40}$/u.test(text) && isPostalLine(next, false) && !LABEL_LIKE.test(next)) ||
      // The last line of an address without a postcode: a place name and then nothing address-like.
      // Capitals of four letters or fewer are a label or code ("IBAN", "VAT"), not a place.
      (PLACE_ONLY.test(text) && !/^[\p{Lu}\s]{1,4}$/u.test(text) && (ends || (PLACE_ONLY.test(next) && !/\d/.test(next))));
    if (!addressy) break;
    lines.push(piece);
  }
  const spans = lines.map((piece) => {
    const lead = piece.text.length - piece.text.trimStart().length;
    let text = piece.text.trim();
    while (/[,;]$/.test(text)) text = text.slice(0, -1).trimEnd();
    return { start: piece.start + lead, end: piece.start + lead + text.length, text };
  }).filter((s) => s.end > s.start);
  if (spans.length === 0) return null;
  const value = spans.map((s) => s.text.replace(/\s+/g, ' ')).join(', ');
  const reasons: string[] = [];
  let quality = 1;
  if (lines.some((piece) => repaired.has(piece))) {
    reasons.push('ocr_corrected_characters');
    quality *= 0.9;
  }
  if (!isPostalLine(spans[spans.length - 1]!.text, spans.length === 1)) {
    reasons.push('address_without_postal_code');
    quality *= spans.length > 1 ? 0.9 : 0.8;
  }
  return { value, spans: spans.map(({ start, end }) => ({ start, end })), quality, reasons };
}
