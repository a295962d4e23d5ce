import type { LocalePack } from './types.ts';

/**
 * Czech, as the Czech Republic writes it. Its háčeks (č, ř, š, ž, ě) are in no other installed
 * model: a Czech case's pages are read in Czech (issue 28 §2).
 */
export const cs: LocalePack = {
  locale: 'cs',
  language: 'Czech',
  dates: {
    // Dates put the month in the genitive ("14. března 2026"); headings use the nominative. Full names
    // only, with and without their marks: the short forms ("pro", "led") are English words too.
    months: {
      leden: 1, ledna: 1, únor: 2, února: 2, unor: 2, unora: 2, březen: 3, března: 3, brezen: 3, brezna: 3,
      duben: 4, dubna: 4, květen: 5, května: 5, kveten: 5, kvetna: 5, červen: 6, června: 6, cerven: 6, cervna: 6,
      červenec: 7, července: 7, cervenec: 7, cervence: 7, srpen: 8, srpna: 8, září: 9, zari: 9,
      říjen: 10, října: 10, rijen: 10, rijna: 10, listopad: 11, listopadu: 11, prosinec: 12, prosince: 12,
    },
    weekdays: ['pondělí', 'úterý', 'středa', 'čtvrtek', 'pátek', 'sobota', 'neděle'],
    daySuffixes: [],
    joiners: [],
    monthBeforeDay: false,
  },
  labels: {
    notNames: [
      'jméno', 'jmeno', 'příjmení', 'prijmeni', 'adresa', 'datum', 'částka', 'castka', 'celkem', 'číslo', 'cislo',
      'účet', 'ucet', 'zákazník', 'zakaznik', 'faktura', 'období', 'obdobi', 'telefon', 'zůstatek', 'zustatek',
    ],
    alsoNames: [],
    notInAddresses: ['telefon', 'zákazník', 'zakaznik', 'faktura', 'celkem'],
  },
  streets: {
    // Czech streets are a name and a number ("Dlouhá 12"), sometimes after "ulice" or "náměstí".
    words: ['ulice', 'náměstí', 'namesti', 'nám.', 'třída', 'trida', 'tř.'],
    endings: [],
    before: [],
    units: [],
  },
  currencies: [
    { code: 'CZK', markers: ['Kč'] },
    { code: 'EUR', markers: ['€'] },
  ],
  postcodes: [{ pattern: String.raw`\d{3}\s\d{2}`, placement: 'before city', example: '602 00 Brno' }],
  numbers: { decimal: ',', grouping: [' ', '\u00a0', '\u202f'] },
  ocr: { code: 'ces', installed: true, reads: 'pages', markedLetters: 'áčďéěíňóřšťúůýž', script: 'Latin' },
};
