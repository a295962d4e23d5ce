import type { LocalePack } from './types.ts';

/** Swedish, as Sweden writes it. */
export const sv: LocalePack = {
  locale: 'sv',
  language: 'Swedish',
  dates: {
    months: {
      januari: 1, jan: 1, februari: 2, feb: 2, mars: 3, mar: 3, april: 4, apr: 4, maj: 5, juni: 6, jun: 6,
      juli: 7, jul: 7, augusti: 8, aug: 8, september: 9, sept: 9, sep: 9, oktober: 10, okt: 10, november: 11,
      nov: 11, december: 12, dec: 12,
    },
    weekdays: ['måndag', 'tisdag', 'onsdag', 'torsdag', 'fredag', 'lördag', 'söndag'],
    daySuffixes: [],
    joiners: [],
    monthBeforeDay: false,
  },
  labels: {
    notNames: [
      'namn', 'adress', 'datum', 'belopp', 'summa', 'totalt', 'nummer', 'nr', 'konto', 'kund', 'kundnummer',
      'faktura', 'fakturanummer', 'period', 'telefon', 'referens', 'saldo', 'förfallodatum',
    ],
    alsoNames: [],
    notInAddresses: ['telefon', 'kund', 'faktura', 'summa', 'totalt'],
  },
  streets: {
    words: [],
    // Swedish streets are one word ending in the street word: "Storgatan", "Sveavägen".
    endings: ['gatan', 'vägen', 'gränd', 'torget', 'backen', 'stigen'],
    before: [],
    units: [],
  },
  currencies: [
    { code: 'SEK', markers: ['kr'] },
    { code: 'EUR', markers: ['€'] },
  ],
  postcodes: [{ pattern: String.raw`\d{3}\s\d{2}`, placement: 'before city', example: '114 51 Stockholm' }],
  numbers: { decimal: ',', grouping: [' ', '\u00a0', '\u202f'] },
  // No Swedish model is installed: German and Danish read "å", "ä" and "ö" between them.
  ocr: { code: 'swe', installed: false, reads: 'pages', markedLetters: 'åäö', script: 'Latin' },
};
