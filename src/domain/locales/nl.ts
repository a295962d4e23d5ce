import type { LocalePack } from './types.ts';

/** Dutch, as the Netherlands and Flanders write it. */
export const nl: LocalePack = {
  locale: 'nl',
  language: 'Dutch',
  dates: {
    months: {
      januari: 1, jan: 1, februari: 2, feb: 2, maart: 3, mrt: 3, april: 4, apr: 4, mei: 5, juni: 6, jun: 6,
      juli: 7, jul: 7, augustus: 8, aug: 8, september: 9, sept: 9, sep: 9, oktober: 10, okt: 10, november: 11,
      nov: 11, december: 12, dec: 12,
    },
    weekdays: ['maandag', 'dinsdag', 'woensdag', 'donderdag', 'vrijdag', 'zaterdag', 'zondag'],
    daySuffixes: [],
    joiners: [],
    monthBeforeDay: false,
  },
  labels: {
    notNames: [
      'naam', 'adres', 'datum', 'bedrag', 'totaal', 'nummer', 'nr', 'rekening', 'rekeningnummer', 'klant',
      'klantnummer', 'factuur', 'factuurnummer', 'periode', 'telefoon', 'referentie', 'saldo',
    ],
    alsoNames: [],
    notInAddresses: ['telefoon', 'klant', 'factuur', 'totaal'],
  },
  streets: {
    words: [],
    // Dutch streets are one word ending in the street word: "Keizersgracht", "Kerkstraat".
    endings: ['straat', 'gracht', 'laan', 'plein', 'kade', 'singel', 'dijk', 'weg'],
    before: [],
    units: [],
  },
  currencies: [{ code: 'EUR', markers: ['€'] }],
  postcodes: [
    { pattern: String.raw`\d{4}\s?[A-Z]{2}`, placement: 'before city', example: '1015 CS Amsterdam' },
    // Belgium.
    { pattern: String.raw`\d{4}`, placement: 'before city', example: '2000 Antwerpen' },
  ],
  numbers: { decimal: ',', grouping: ['.'] },
  ocr: { code: 'nld', installed: false, reads: 'pages', markedLetters: 'éëïöü', script: 'Latin' },
};
