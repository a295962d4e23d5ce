/**
 * The locale packs: what extraction knows of each language, as data (types.ts says what a pack
 * holds). The parsers read every pack at once — a document's language is not known before it is
 * read, and an English bill quotes French addresses — so a word added to one pack is read in
 * every document. OCR reads the packs of the languages a case is in (documents/ocr/languages.ts).
 *
 * A folder of its own, importing nothing: the parsers, documents and extraction all read it, and
 * extraction already imports the other two, so packs inside extraction/ would close a loop.
 */
import { cs } from './cs.ts';
import { da } from './da.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';
import { ga } from './ga.ts';
import { it } from './it.ts';
import { nl } from './nl.ts';
import { pl } from './pl.ts';
import { pt } from './pt.ts';
import { sv } from './sv.ts';
import type { LocalePack } from './types.ts';

export type { Currency, DateWords, LabelWords, LocalePack, NumberMarks, OcrLanguage, PostcodeShape, StreetWords } from './types.ts';

/** Every pack, English first. */
export const LOCALE_PACKS: readonly LocalePack[] = [en, fr, de, es, pt, it, nl, pl, cs, sv, da, ga];

/** The pack of a locale code ("fr", "fr-CA", "FR"), or undefined when no pack has its language. */
export function packFor(locale: string): LocalePack | undefined {
  const language = locale.trim().toLowerCase().split(/[-_]/)[0];
  return LOCALE_PACKS.find((pack) => pack.locale === language);
}

/** One list drawn from every pack, without repeats, in the packs' order. */
export function fromEveryPack<T>(pick: (pack: LocalePack) => readonly T[]): T[] {
  return [...new Set(LOCALE_PACKS.flatMap(pick))];
}
