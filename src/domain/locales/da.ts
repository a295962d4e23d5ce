import type { LocalePack } from './types.ts';

/** Danish, as Denmark writes it. */
export const da: LocalePack = {
  locale: 'da',
  language: 'Danish',
  dates: {
    months: {
      januar: 1, jan: 1, februar: 2, feb: 2, marts: 3, mar: 3, april: 4, apr: 4, maj: 5, juni: 6, jun: 6, juli: 7,
      jul: 7, august: 8, aug: 8, september: 9, sept: 9, sep: 9, oktober: 10, okt: 10, november: 11, nov: 11,
      december: 12, dec: 12,
    },
    weekdays: ['mandag', 'tirsdag', 'onsdag', 'torsdag', 'fredag', 'lørdag', 'søndag'],
    daySuffixes: [],
    joiners: [],
    monthBeforeDay: false,
  },
  labels: {
    notNames: [
      'navn', 'adresse', 'dato', 'beløb', 'total', 'nummer', 'nr', 'konto', 'kunde', 'kundenummer', 'faktura',
      'fakturanummer', 'periode', 'telefon', 'tlf', 'saldo', 'forfaldsdato',
    ],
    alsoNames: [],
    notInAddresses: ['tlf', 'telefon', 'kunde', 'faktura', 'total'],
  },
  streets: {
    words: [],
    // Danish streets are one word: "Nørregade", "Vestervej", "Strandallé".
    endings: ['gade', 'vej', 'allé'],
    before: [],
    units: [],
  },
  currencies: [
    { code: 'DKK', markers: ['kr.'] },
    { code: 'EUR', markers: ['€'] },
  ],
  postcodes: [{ pattern: String.raw`\d{4}`, placement: 'before city', example: '1165 København K' }],
  numbers: { decimal: ',', grouping: ['.'] },
  ocr: { code: 'dan', installed: true, reads: 'pages', markedLetters: 'æøå', script: 'Latin' },
};
