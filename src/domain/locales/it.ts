import type { LocalePack } from './types.ts';

/** Italian, as Italy writes it. */
export const it: LocalePack = {
  locale: 'it',
  language: 'Italian',
  dates: {
    months: {
      gennaio: 1, gen: 1, febbraio: 2, feb: 2, marzo: 3, mar: 3, aprile: 4, apr: 4, maggio: 5, mag: 5, giugno: 6,
      giu: 6, luglio: 7, lug: 7, agosto: 8, ago: 8, settembre: 9, sett: 9, set: 9, ottobre: 10, ott: 10,
      novembre: 11, nov: 11, dicembre: 12, dic: 12,
    },
    weekdays: ['lunedì', 'lunedi', 'martedì', 'martedi', 'mercoledì', 'mercoledi', 'giovedì', 'giovedi', 'venerdì', 'venerdi', 'sabato', 'domenica'],
    daySuffixes: [],
    joiners: [],
    monthBeforeDay: false,
  },
  labels: {
    notNames: [
      'nome', 'cognome', 'indirizzo', 'data', 'importo', 'totale', 'numero', 'conto', 'cliente', 'fattura', 'periodo',
      'telefono', 'riferimento', 'saldo', 'scadenza',
    ],
    alsoNames: [],
    notInAddresses: ['telefono', 'cliente', 'fattura', 'totale'],
  },
  streets: {
    words: [],
    endings: [],
    before: ['via', 'viale', 'piazza', 'corso', 'vicolo', 'largo', 'strada'],
    units: [],
  },
  currencies: [
    { code: 'EUR', markers: ['€'] },
    { code: 'CHF', markers: [] },
  ],
  postcodes: [{ pattern: String.raw`\d{5}`, placement: 'before city', example: '00184 Roma' }],
  numbers: { decimal: ',', grouping: ['.'] },
  // No Italian model is installed: French reads most of its accented vowels.
  ocr: { code: 'ita', installed: false, reads: 'pages', markedLetters: 'àèéìíòóù', script: 'Latin' },
};
