import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chooseOcrLanguages, DEFAULT_OCR_LANGUAGES } from '../../src/domain/documents/ocr/languages.ts';
import { LOCALE_PACKS, packFor } from '../../src/domain/locales/index.ts';
import { parseAddress } from '../../src/domain/parsers/address.ts';
import type { ParseContext } from '../../src/domain/parsers/common.ts';
import { parseDate } from '../../src/domain/parsers/date.ts';
import { currencyOfMarker, parseMoney } from '../../src/domain/parsers/money.ts';
import { parseName, parseString } from '../../src/domain/parsers/text.ts';

/**
 * Issue 28 §3: language knowledge lives in one pack per locale, and the parsers and OCR read it.
 * Each pack is checked for what a pack must hold, and through the parsers that read it: a word a
 * pack adds that no parser reads fails here.
 */
const context: ParseContext = { ocr: false, dateOrder: 'dmy', dateOrderFromDocument: false };
const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };

describe('locale packs', () => {
  it('has the twelve packs, one per locale', () => {
    expect(LOCALE_PACKS.map((pack) => pack.locale)).toEqual(['en', 'fr', 'de', 'es', 'pt', 'it', 'nl', 'pl', 'cs', 'sv', 'da', 'ga']);
    expect(packFor('fr-CA')?.language).toBe('French');
    expect(packFor('DE')?.locale).toBe('de');
    expect(packFor('ja')).toBeUndefined();
  });

  it.each(LOCALE_PACKS.map((pack) => [pack.locale, pack] as const))('%s holds every field a pack needs', (_, pack) => {
    expect(new Set(Object.values(pack.dates.months))).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]));
    expect(pack.dates.weekdays.length).toBeGreaterThanOrEqual(7);
    expect(pack.labels.notNames.length).toBeGreaterThan(5);
    expect(pack.streets.words.length + pack.streets.endings.length + pack.streets.before.length).toBeGreaterThan(0);
    expect(pack.currencies.length).toBeGreaterThan(0);
    for (const currency of pack.currencies) expect(currency.code).toMatch(/^[A-Z]{3}$/);
    expect(pack.postcodes.length).toBeGreaterThan(0);
    expect([',', '.']).toContain(pack.numbers.decimal);
    expect(pack.numbers.grouping).not.toContain(pack.numbers.decimal);
    expect(pack.ocr.code).toMatch(/^[a-z]{3}$/);
    expect(pack.ocr.markedLetters).toBe(pack.ocr.markedLetters.toLowerCase());
    // Words are lowercase: the parsers fold case before they look a word up.
    const words = [
      ...Object.keys(pack.dates.months), ...pack.dates.weekdays, ...pack.labels.notNames, ...pack.labels.alsoNames,
      ...pack.labels.notInAddresses, ...pack.streets.words, ...pack.streets.endings, ...pack.streets.before, ...pack.streets.units,
    ];
    expect(words.filter((word) => word !== word.toLowerCase())).toEqual([]);
  });

  it('says which languages have Tesseract data installed, as package.json does (nothing is downloaded)', () => {
    for (const pack of LOCALE_PACKS) expect([pack.locale, pack.ocr.installed]).toEqual([pack.locale, `@tesseract.js-data/${pack.ocr.code}` in packageJson.dependencies]);
    expect(LOCALE_PACKS.filter((pack) => !pack.ocr.installed).map((pack) => pack.locale)).toEqual(['es', 'it', 'nl', 'sv']);
  });

  it('packs agree where they share a word', () => {
    const months = new Map<string, number>();
    for (const pack of LOCALE_PACKS) {
      for (const [name, month] of Object.entries(pack.dates.months)) {
        expect([pack.locale, name, months.get(name) ?? month]).toEqual([pack.locale, name, month]);
        months.set(name, month);
      }
    }
    // A word that may be a name in one language is not a name stopper in another.
    const alsoNames = new Set(LOCALE_PACKS.flatMap((pack) => pack.labels.alsoNames));
    expect(LOCALE_PACKS.flatMap((pack) => pack.labels.notNames).filter((word) => alsoNames.has(word))).toEqual([]);
  });
});

describe('the parsers read the packs', () => {
  it.each(LOCALE_PACKS.map((pack) => [pack.locale, pack] as const))('%s: every month name parses a date', (_, pack) => {
    for (const [name, month] of Object.entries(pack.dates.months)) {
      const iso = `2026-${String(month).padStart(2, '0')}-14`;
      expect([name, parseDate(`14 ${name} 2026`, context)?.value]).toEqual([name, iso]);
      if (pack.dates.monthBeforeDay) expect([name, parseDate(`${name} 14, 2026`, context)?.value]).toEqual([name, iso]);
    }
    const [month, number] = Object.entries(pack.dates.months).find(([, n]) => n === 3)!;
    const weekday = pack.dates.weekdays[0]!;
    const dated = parseDate(`${weekday}, 14 ${month} 2026`, context);
    expect(dated?.value).toBe(`2026-0${number}-14`);
    // Evidence starts at the date, not at the weekday in front of it.
    expect(dated?.start).toBe(weekday.length + 2);
  });

  it('reads the day suffixes and joining words of the packs', () => {
    expect(parseDate('1er mars 2026', context)?.value).toBe('2026-03-01');
    expect(parseDate('14th of March 2026', context)?.value).toBe('2026-03-14');
    expect(parseDate('14 de março de 2026', context)?.value).toBe('2026-03-14');
    expect(parseDate('14 Meán Fómhair 2026', context)?.value).toBe('2026-09-14');
  });

  it.each(LOCALE_PACKS.map((pack) => [pack.locale, pack] as const))('%s: every postcode shape ends an address, in its example', (_, pack) => {
    for (const postcode of pack.postcodes) {
      const read = parseAddress({ text: '12 Main Street', start: 0 }, [{ text: postcode.example, start: 20 }]);
      expect([postcode.example, read?.value, read?.reasons]).toEqual([postcode.example, `12 Main Street, ${postcode.example}`, []]);
    }
  });

  it.each(LOCALE_PACKS.map((pack) => [pack.locale, pack] as const))('%s: its street words start an address', (_, pack) => {
    const starts = [
      ...pack.streets.words.map((word) => `Main ${word[0]!.toUpperCase()}${word.slice(1)} 7`),
      ...pack.streets.endings.map((ending) => `Kirch${ending} 7`),
      ...pack.streets.before.map((word) => `${word[0]!.toUpperCase()}${word.slice(1)}${/[./]$/.test(word) ? '' : ' '}Mayor 7`),
      ...pack.streets.units.map((word) => `${word[0]!.toUpperCase()}${word.slice(1)} 4`),
    ];
    for (const start of starts) expect([start, parseAddress({ text: start, start: 0 }, [])?.value]).toEqual([start, start]);
  });

  it.each(LOCALE_PACKS.map((pack) => [pack.locale, pack] as const))('%s: amounts in its currencies and number marks', (_, pack) => {
    const amount = `1${pack.numbers.grouping[0]}234${pack.numbers.decimal}56`;
    for (const currency of pack.currencies) {
      for (const marker of [currency.code, ...currency.markers]) {
        const read = parseMoney(`${marker} ${amount}`, context);
        expect([marker, read?.value, read?.currency?.replace(/\.$/, '')]).toEqual([marker, '1234.56', marker.replace(/\.$/, '')]);
        expect([marker, parseMoney(`${amount} ${marker}`, context)?.value]).toEqual([marker, '1234.56']);
      }
    }
  });

  it('names a currency by a marker only one currency prints', () => {
    expect(['£', 'Rs.', 'zł', 'Kč', 'US$', 'R$', 'EUR', '$', 'kr', '¥'].map(currencyOfMarker)).toEqual(['GBP', 'INR', 'PLN', 'CZK', 'USD', 'BRL', 'EUR', undefined, undefined, undefined]);
  });

  it.each(LOCALE_PACKS.map((pack) => [pack.locale, pack] as const))('%s: a name stops at its label words', (_, pack) => {
    for (const word of pack.labels.notNames) {
      const label = `${word[0]!.toUpperCase()}${word.slice(1)}`;
      expect([word, parseName(`Jane Doe ${label} 12`, context)?.value]).toEqual([word, 'Jane Doe']);
      expect([word, parseString(`${label}:`, context)]).toEqual([word, null]);
    }
    for (const word of pack.labels.alsoNames) expect([word, parseString(`Acme Ltd ${word}: 12`, context)?.value]).toEqual([word, 'Acme Ltd']);
  });
});

describe('OCR languages from the case', () => {
  it('reads a French session of a case type in English and French in French, then English', () => {
    expect(chooseOcrLanguages({ sessionLocale: 'fr', caseTypeLocales: ['en', 'fr'] }).page).toEqual(['fra', 'eng']);
    expect(chooseOcrLanguages({ sessionLocale: 'fr', caseTypeLocales: ['en'] }).page).toEqual(['fra', 'eng']);
    expect(chooseOcrLanguages({ sessionLocale: 'fr-CA', caseTypeLocales: ['en', 'fr', 'de', 'es'] }).page).toEqual(['fra', 'eng', 'deu']);
    // No session: the case type's languages.
    expect(chooseOcrLanguages({ sessionLocale: null, caseTypeLocales: ['en', 'de'] }).page).toEqual(['eng', 'deu']);
  });

  it('falls back to the languages every page was read in when the case names no installed language but English', () => {
    const fallback = ['eng', 'fra', 'deu', 'por', 'dan'];
    expect(DEFAULT_OCR_LANGUAGES.page).toEqual(fallback);
    expect(chooseOcrLanguages({}).page).toEqual(fallback);
    expect(chooseOcrLanguages({ sessionLocale: 'en', caseTypeLocales: ['en'] }).page).toEqual(fallback);
    // Spanish has no model installed; an unknown locale has no pack. Polish has one (issue 28 §2).
    expect(chooseOcrLanguages({ sessionLocale: 'es', caseTypeLocales: ['en', 'es'] }).page).toEqual(fallback);
    expect(chooseOcrLanguages({ sessionLocale: 'pl' }).page).toEqual(['pol', 'eng']);
    expect(chooseOcrLanguages({ sessionLocale: 'xx' }).page).toEqual(fallback);
  });

  it('reads marks in the page languages, then the fallback\'s and Irish; Irish only for marks', () => {
    expect(DEFAULT_OCR_LANGUAGES.marks).toEqual(['fra', 'deu', 'por', 'dan', 'gle']);
    expect(chooseOcrLanguages({ sessionLocale: 'da', caseTypeLocales: ['en'] })).toEqual({ page: ['dan', 'eng'], marks: ['dan', 'fra', 'deu', 'por', 'gle'] });
    // Polish and Czech read the marks of their own cases' pages only (a cost on every page otherwise).
    expect(chooseOcrLanguages({ sessionLocale: 'cs', caseTypeLocales: ['en'] })).toEqual({ page: ['ces', 'eng'], marks: ['ces', 'fra', 'deu', 'por', 'dan', 'gle'] });
    expect(chooseOcrLanguages({ sessionLocale: 'ga', caseTypeLocales: ['en'] }).page).toEqual(['eng', 'fra', 'deu', 'por', 'dan']);
  });

  it('leaves out languages of another script than the one detected', () => {
    expect(chooseOcrLanguages({ sessionLocale: 'fr', caseTypeLocales: ['en'], script: 'Latin' }).page).toEqual(['fra', 'eng']);
    // No installed model writes Cyrillic: the fallback is the best there is.
    expect(chooseOcrLanguages({ sessionLocale: 'fr', script: 'Cyrillic' }).page).toEqual(['eng', 'fra', 'deu', 'por', 'dan']);
  });
});
