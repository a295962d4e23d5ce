/**
 * What the extraction knows about one language: the words and shapes its documents are written
 * in. The parsers (dates, money, addresses, label words) and OCR read these packs and keep no
 * word lists of their own, so a new language is one new pack and a line in index.ts.
 *
 * Words are written lowercase as a reader would type them, with their marks ("février", "ulica");
 * the parsers match them case-insensitively. A pack lists what documents in its language commonly
 * print, not every form a grammar allows: each entry widens what the parsers accept, for every
 * document, whatever its language.
 */
export interface LocalePack {
  /** ISO 639-1 code ("fr"), the same code sessions and case type translations use. */
  readonly locale: string;
  /** The language's English name, for notes and tests. */
  readonly language: string;
  readonly dates: DateWords;
  readonly labels: LabelWords;
  readonly streets: StreetWords;
  /** Currencies documents in this language commonly carry, each with the markers they print. */
  readonly currencies: readonly Currency[];
  /** Postcodes of the countries writing this language, as they stand in an address. */
  readonly postcodes: readonly PostcodeShape[];
  readonly numbers: NumberMarks;
  readonly ocr: OcrLanguage;
}

export interface DateWords {
  /** Month names and their usual abbreviations, each with its month (1–12): `{ janvier: 1, janv: 1 }`. */
  readonly months: Readonly<Record<string, number>>;
  /** Weekday names and abbreviations that may open a date ("Saturday, March 14, 2026"). */
  readonly weekdays: readonly string[];
  /** What follows the day's number ("14th", "1er"); a full stop after the day is read in every language. */
  readonly daySuffixes: readonly string[];
  /** Words between day, month and year ("14th of March", "14 de março de 2026"). */
  readonly joiners: readonly string[];
  /**
   * Whether the language writes the month before the day in words ("March 14, 2026"), which
   * makes such a date a sign of month-first numeric dates in the same document.
   */
  readonly monthBeforeDay: boolean;
}

/**
 * Words that label fields on statements, bills and forms. A value running into an inline label
 * ("Jane Doe Pay period: …") loses those in front of the colon.
 */
export interface LabelWords {
  /** Label words that are never part of a person's name: a name never starts with one and stops in front of one. */
  readonly notNames: readonly string[];
  /** Label words that are also names or words of names ("Bill", "Page", "Grant"): they end a value only in front of a colon. */
  readonly alsoNames: readonly string[];
  /**
   * Words that make a line another field's value (contact details, amounts due, "customer since"),
   * never a line of an address. Kept short: a word here ends every address it appears in.
   */
  readonly notInAddresses: readonly string[];
}

export interface StreetWords {
  /** Street words and their abbreviations standing as words of their own: "Road", "Rd", "rue", "Avenida". */
  readonly words: readonly string[];
  /** Endings of one-word street names: "Hauptstraße", "Nørregade", "Keizersgracht", "Storgatan". */
  readonly endings: readonly string[];
  /**
   * Abbreviations and words written before the street's name, with their full stop or slash
   * when they take one: "ul.", "C/", "Via". Only read at the start of an address.
   */
  readonly before: readonly string[];
  /** Words for a flat, unit or office that may open an address ("Apt 4", "Suite 200"). */
  readonly units: readonly string[];
}

export interface Currency {
  /** ISO 4217 code, itself a marker ("EUR 12,50"). */
  readonly code: string;
  /**
   * Symbols and abbreviations printed for it ("€", "zł", "Rs."). An abbreviation written with a
   * full stop may be printed without it. A marker several currencies print ("$", "kr") names none
   * of them on its own.
   */
  readonly markers: readonly string[];
}

export interface PostcodeShape {
  /**
   * The code as a regular expression source, without anchors. A code that stands after the city
   * carries what must precede it to tell it from a house number (a state code or a comma for a
   * US ZIP); one before the city is told apart by its line (see parsers/address.ts).
   */
  readonly pattern: string;
  /** `before city`: "75001 Paris", "80-827 Gdańsk". `after city`: "Springfield, IL 62704", "London SW1A 1AA". */
  readonly placement: 'before city' | 'after city';
  /** A postal line written this way, for the tests and for a reader. */
  readonly example: string;
}

export interface NumberMarks {
  /** The decimal mark amounts are printed with: "1.234,56" has ",". */
  readonly decimal: '.' | ',';
  /** Marks grouping thousands: ",", ".", a space, a no-break space (U+00A0) or a thin one (U+202F). */
  readonly grouping: readonly string[];
}

/**
 * How Tesseract reads the language. Which models are installed is a fact of package.json
 * (`@tesseract.js-data/<code>`); a test keeps `installed` true to it. Nothing is downloaded.
 */
export interface OcrLanguage {
  /** Tesseract's code for the language's model ("fra"). */
  readonly code: string;
  readonly installed: boolean;
  /**
   * `pages`: read whole pages with it. `marks`: read only the words read again for their marks,
   * because reading every page in it costs more than it finds (see ga.ts).
   */
  readonly reads: 'pages' | 'marks';
  /**
   * The marked letters the language writes that English lacks, lowercase, letters of their own
   * included ("ø", "æ", "ł": no mark comes apart from them, and a word holding one shows its
   * mark; see ocr/lost-marks.ts). A language with none reads no word again for its marks.
   */
  readonly markedLetters: string;
  /** Tesseract's name of the script (its orientation and script detection says "Latin"). */
  readonly script: string;
}
