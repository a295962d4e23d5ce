import { LOCALE_PACKS, packFor, type LocalePack } from '../../locales/index.ts';
import type { OcrLanguages } from './engine.ts';

/** What a document's OCR languages are chosen from: its case. */
export interface OcrLanguageChoice {
  /** The locale of the case's applicant session ("fr"), when it has one. */
  readonly sessionLocale?: string | null | undefined;
  /** The case type's locales: the one it is written in, then those it has translations for. */
  readonly caseTypeLocales?: readonly string[] | undefined;
  /** The script Tesseract's orientation and script detection saw ("Latin"), when it ran. */
  readonly script?: string | undefined;
}

/**
 * English with French, German, Portuguese and Danish: what every page was read in before a case
 * could say its languages, and still what a case that names none but English gets, because
 * English documents carry names from everywhere. Each adds the marked Latin letters of its
 * language (é è ç ô, ä ö ü ß, ã õ á í, ø æ å) that English lacks, so "Hélène Lefèvre" is not read
 * as "Helene Lefevre" nor "Hauptstraße" as "HauptstraBe". Tesseract tries the other languages only
 * on words the first reads poorly. Measured on the tuned half of the corpus scans (in-process
 * CPU per page): eng+fra 0.59–0.63 s; all five 0.70–0.79 s (+19–25 %), +2 facts in ~125 on each
 * of two seeds; eng+fra+por alone added nothing. Each model is 1.3–1.8 MB gzipped.
 */
const FALLBACK_LOCALES = ['en', 'fr', 'de', 'pt', 'da'];

const readsPages = (pack: LocalePack) => pack.ocr.installed && pack.ocr.reads === 'pages';

/**
 * The languages every page's unsure and mark-lost words are read again in, whatever its case: the
 * fallback's and those that read only marks (Irish). Others with a model (Polish, Czech) read the
 * marks of their own cases' pages only: on the bench's dense 300 dpi page the two of them added
 * 0.25 s (1.91 → 2.16 s) for every page of every case, against issue 28's 1.5 s a page.
 */
const EVERY_PAGE_MARKS = LOCALE_PACKS.filter((pack) => FALLBACK_LOCALES.includes(pack.locale) || pack.ocr.reads === 'marks');

/**
 * The languages a document is read in, from its case:
 * - pages: the session's language, then the case type's, each whose model is installed and that
 *   reads pages, with English last when neither named it: case types are written in English, so
 *   their anchors are English words the page must be read for. A case naming no installed language but English — no
 *   session locale, English only, or only languages without a model (Spanish) — gets the fallback
 *   above: its documents' names and marks could be in any of them.
 * - marks: the page languages with marked letters, then those of EVERY_PAGE_MARKS. A word is read
 *   again for its marks only when its pixels show a lost mark or it was read unsure, so the other
 *   languages cost little on most pages; they keep a German name on a French document readable.
 * - script: languages writing another script than the one detected are left out; every installed
 *   model writes Latin, so today a detected script can only send a page to the fallback.
 */
export function chooseOcrLanguages(choice: OcrLanguageChoice): OcrLanguages {
  const inScript = (pack: LocalePack) => choice.script === undefined || pack.ocr.script === choice.script;
  const named = [choice.sessionLocale, ...(choice.caseTypeLocales ?? [])]
    .flatMap((locale) => (locale ? [packFor(locale)] : []))
    .filter((pack): pack is LocalePack => pack !== undefined && readsPages(pack) && inScript(pack));
  const fallback = FALLBACK_LOCALES.map((locale) => packFor(locale)!);
  const english = packFor('en')!;
  let page: LocalePack[];
  if (named.some((pack) => pack !== english)) page = [...named, ...(inScript(english) ? [english] : [])];
  else page = fallback.some(inScript) ? fallback.filter(inScript) : fallback;
  const pageCodes = [...new Set(page.map((pack) => pack.ocr.code))];
  const marked = (pack: LocalePack) => pack.ocr.installed && pack.ocr.markedLetters !== '';
  const marks = [...new Set([...page, ...EVERY_PAGE_MARKS].filter(marked).map((pack) => pack.ocr.code))];
  return { page: pageCodes, marks };
}

/** What a document with no case to ask is read in: the fallback, and every installed language for marks. */
export const DEFAULT_OCR_LANGUAGES: OcrLanguages = chooseOcrLanguages({});

/** Every installed model's code (Tesseract's "fra"), for the engine to link beside each other. */
export const INSTALLED_OCR_LANGUAGES: readonly string[] = [...new Set(LOCALE_PACKS.filter((pack) => pack.ocr.installed).map((pack) => pack.ocr.code))];
