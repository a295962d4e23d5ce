import type { LocalePack } from './types.ts';

/** German, as Germany, Austria and Switzerland write it. */
export const de: LocalePack = {
  locale: 'de',
  language: 'German',
  dates: {
    months: {
      januar: 1, jänner: 1, jan: 1, februar: 2, feb: 2, märz: 3, maerz: 3, mär: 3, april: 4, apr: 4, mai: 5,
      juni: 6, jun: 6, juli: 7, jul: 7, august: 8, aug: 8, september: 9, sept: 9, sep: 9, oktober: 10, okt: 10,
      november: 11, nov: 11, dezember: 12, dez: 12,
    },
    weekdays: ['montag', 'dienstag', 'mittwoch', 'donnerstag', 'freitag', 'samstag', 'sonnabend', 'sonntag'],
    daySuffixes: [],
    joiners: [],
    monthBeforeDay: false,
  },
  labels: {
    notNames: [
      'vorname', 'nachname', 'anschrift', 'adresse', 'datum', 'betrag', 'summe', 'gesamt', 'gesamtbetrag', 'nummer',
      'nr', 'konto', 'kunde', 'kundennummer', 'rechnung', 'rechnungsnummer', 'zeitraum', 'telefon', 'saldo',
    ],
    alsoNames: [],
    notInAddresses: ['telefon', 'kunde', 'rechnung', 'konto', 'gesamt'],
  },
  streets: {
    words: [],
    // German streets are one word: "Hauptstraße", "Lindenallee", "Marktplatz".
    endings: ['straße', 'strasse', 'str.', 'weg', 'allee', 'platz', 'ring', 'gasse'],
    before: [],
    units: [],
  },
  currencies: [
    { code: 'EUR', markers: ['€'] },
    { code: 'CHF', markers: [] },
  ],
  postcodes: [
    { pattern: String.raw`\d{5}`, placement: 'before city', example: '10115 Berlin' },
    // Austria and Switzerland.
    { pattern: String.raw`\d{4}`, placement: 'before city', example: '8001 Zürich' },
  ],
  numbers: { decimal: ',', grouping: ['.'] },
  ocr: { code: 'deu', installed: true, reads: 'pages', markedLetters: 'äöüß', script: 'Latin' },
};
