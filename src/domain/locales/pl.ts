import type { LocalePack } from './types.ts';

/** Polish, as Poland writes it. */
export const pl: LocalePack = {
  locale: 'pl',
  language: 'Polish',
  dates: {
    // Dates put the month in the genitive ("14 marca 2026 r."); headings use the nominative. Both
    // without their marks too, as OCR and English keyboards leave them.
    months: {
      stycznia: 1, styczeń: 1, styczen: 1, sty: 1, lutego: 2, luty: 2, lut: 2, marca: 3, marzec: 3, mar: 3,
      kwietnia: 4, kwiecień: 4, kwiecien: 4, kwi: 4, maja: 5, maj: 5, czerwca: 6, czerwiec: 6, cze: 6,
      lipca: 7, lipiec: 7, lip: 7, sierpnia: 8, sierpień: 8, sierpien: 8, sie: 8, września: 9, wrzesnia: 9,
      wrzesień: 9, wrzesien: 9, wrz: 9, października: 10, pazdziernika: 10, październik: 10, pazdziernik: 10,
      paź: 10, paz: 10, listopada: 11, listopad: 11, lis: 11, grudnia: 12, grudzień: 12, grudzien: 12, gru: 12,
    },
    weekdays: ['poniedziałek', 'wtorek', 'środa', 'czwartek', 'piątek', 'sobota', 'niedziela'],
    daySuffixes: [],
    joiners: [],
    monthBeforeDay: false,
  },
  labels: {
    notNames: [
      'imię', 'imie', 'nazwisko', 'adres', 'data', 'kwota', 'suma', 'razem', 'numer', 'nr', 'konto', 'klient',
      'faktura', 'okres', 'telefon', 'saldo',
    ],
    alsoNames: [],
    notInAddresses: ['telefon', 'klient', 'faktura', 'razem', 'suma'],
  },
  streets: {
    words: [],
    endings: [],
    // ulica, aleja, osiedle, plac: "ul. Długa 5/3".
    before: ['ul.', 'al.', 'os.', 'pl.'],
    units: [],
  },
  currencies: [
    { code: 'PLN', markers: ['zł'] },
    { code: 'EUR', markers: ['€'] },
  ],
  postcodes: [{ pattern: String.raw`\d{2}-\d{3}`, placement: 'before city', example: '80-827 Gdańsk' }],
  numbers: { decimal: ',', grouping: [' ', '\u00a0'] },
  // Polish pages are read in Polish: no other model has "ł", "ś" or "ż", which it reads.
  ocr: { code: 'pol', installed: true, reads: 'pages', markedLetters: 'ąćęłńóśźż', script: 'Latin' },
};
