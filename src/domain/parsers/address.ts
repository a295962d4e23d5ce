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
export interface AddressPiece { readonly text: string; readonly start: number; }

export interface ParsedAddress {
  readonly value: string;
  /** Absolute spans, one per line used. */
  readonly spans: ReadonlyArray<{ start: number; end: number }>;
  readonly quality: number;
  readonly reasons: readonly string[];
}

const STREET_WORDS = /\b(street|st|avenue|ave|road|rd|lane|ln|drive|dr|boulevard|blvd|court|ct|way|place|pl|terrace|close|crescent|cres|highway|hwy|parkway|pkwy|square|sq|circle|cir|trail|row|gardens|grove|hill|walk|mews|rue|avenue|boulevard|chemin|rua|avenida|travessa|largo|praça|marg|nagar)\b\.?|(straße|strasse|str\.|gade|vej|allé|weg|allee|platz|ring)\b/iu;
/**
 * Street abbreviations and words written before the street's name: Polish "ul." / "al." / "os." /
 * "pl.", Spanish "C/", "Avda.", "Pza.", "Paseo", Italian "Via", "Viale", "Piazza", "Corso".
 */
const STREET_PREFIX = /^(?:ul|al|os|pl|avda|av|pza|pso|c|calle|plaza|paseo|via|viale|piazza|corso|vicolo|largo|strada|rua|rue)(?:\.|\/|\s)\s*\p{L}/iu;
/** Dutch and Swedish streets are one word ending in the street word: "Keizersgracht", "Storgatan". */
const STREET_SUFFIX = /^\p{Lu}\p{L}*(?:straat|gracht|laan|plein|kade|singel|dijk|gatan|vägen|gränd|torget|backen|stigen)\s+\d/u;
const ADDRESS_START = /^(\d+[\p{L}]?(?:[-–/]\d+[\p{L}]?)?,?\s+\S|p\.?\s*o\.?\s*box\b|(apt|apartment|unit|suite|ste|flat|floor|fl|villa|office)\.?\s*#?\s*\w)/iu;
/** A line that ends an address: US "IL 62704" / ", 62704-1234", UK "SW1A 1AA", Canada "K1A 0B1",
 * or continental "75001 Paris" / "10115 Berlin, Germany". */
const POSTAL_LINE = new RegExp(
  [
    String.raw`(\b[A-Z]{2}\.?\s+|,\s*)\d{5}(-\d{4})?\.?$`,
    String.raw`\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}\.?$`,
    String.raw`\b[A-Z]\d[A-Z]\s?\d[A-Z]\d\.?$`,
    // Ireland's Eircode "D02 X285"; India's six-digit PIN after the city, "Bengaluru 560001" / "Mumbai - 400001".
    String.raw`\b[AC-FHKNPRTV-Y]\d{2}\s?[AC-FHKNPRTV-Y\d]{4}\.?$`,
    String.raw`\p{L}\s*[-–]?\s*\d{3}\s?\d{3}\.?$`,
  ].join('|'),
  'u',
);
/** Continental "75001 Paris" looks like a house number and a street ("2397 Cedar Lane"), so it
 * only counts after the first line and without a street word. */
const CONTINENTAL_POSTCODE = String.raw`(?:[A-Z]{1,2}-)?(?:\d{4}-\d{3}|\d{2}-\d{3}|\d{3}\s\d{2}|\d{4}\s?[A-Z]{2}|\d{4,5})`;
const CONTINENTAL_POSTAL_LINE = new RegExp(String.raw`^${CONTINENTAL_POSTCODE}\s+\p{Lu}\p{L}+(?:[ ,-]+\p{L}+)*\.?$`, 'u');
/** The same postcode-first shape at the end of a one-line address: "Rua Augusta 25, 1200-195 Lisboa". */
const CONTINENTAL_POSTAL_TAIL = new RegExp(String.raw`,\s*${CONTINENTAL_POSTCODE}\s+\p{Lu}\p{L}+(?:[ -]+\p{L}+)*\.?$`, 'u');
/** A street name before its number, as most of Europe writes it: "Rua Augusta 25", "Hauptstraße 5b". */
const NUMBER_AFTER_STREET = /^\p{Lu}[\p{L}.'’ -]{2,40}\s\d{1,4}[\p{L}]?(?:[,\s]|$)/u;
/** A line that is only a place name, as the last line of an address with no postcode ("Dubai"). */
const PLACE_ONLY = /^\p{Lu}[\p{L}.'’-]*(?: \p{Lu}[\p{L}.'’-]*){0,2}$/u;
/** Lines with these are values of other fields (amounts, dates, contact details), never address lines. */
const NOT_ADDRESS = /[$€£₹]|\b(?:AED|USD|EUR|GBP|INR|DKK)\b|\d{1,4}[./]\d{1,2}[./]\d{2,4}|@|https?:|www\.|\b(?:since|tel|phone|e-?mail|customer|account|invoice|due|period|total)\b/iu;

function isPostalLine(text: string, first: boolean): boolean {
  return POSTAL_LINE.test(text) || CONTINENTAL_POSTAL_TAIL.test(text) || (!first && CONTINENTAL_POSTAL_LINE.test(text) && !STREET_WORDS.test(text));
}
const CITY_REGION = /^[\p{Lu}][\p{L} .'’-]+,\s*[\p{Lu}][\p{L} .'’-]*$/u;
const LABEL_LIKE = /^[\p{L}][\p{L} .'’#/-]{0,30}:(\s|$)|:$/u;
const MAX_LINES = 5;

/** OCR look-alikes of the digits a UK postcode must have in its digit places. */
const POSTCODE_DIGIT_LOOK_ALIKES: Record<string, string> = { I: '1', l: '1', O: '0', S: '5', Z: '2', B: '8' };
const UK_POSTCODE_OCR = /^(\s*[A-Z]{1,2})([\dIlOSZB])([A-Z\d]?\s?)([\dIlOSZB])([A-Z]{2}\.?\s*)$/;

/**
 * A line that is a UK postcode once OCR look-alikes in its two digit places are digits ("MI 3NP",
 * "SWIA 4HJ"): the postcode's own shape says which characters are digits. Same length, so offsets
 * hold. Lines that are not postcode-shaped come back unchanged.
 */
function repairOcrPostcode(text: string): string {
  const m = text.match(UK_POSTCODE_OCR);
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
