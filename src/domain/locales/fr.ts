import type { LocalePack } from './types.ts';

/** French, as France, Belgium, Switzerland and Quebec write it. */
export const fr: LocalePack = {
  locale: 'fr',
  language: 'French',
  dates: {
    // Written without their accents too: typed on an English keyboard, or read so by OCR.
    months: {
      janvier: 1, janv: 1, février: 2, fevrier: 2, févr: 2, fevr: 2, mars: 3, avril: 4, avr: 4, mai: 5, juin: 6,
      juillet: 7, juil: 7, août: 8, aout: 8, septembre: 9, sept: 9, octobre: 10, oct: 10, novembre: 11, nov: 11,
      décembre: 12, decembre: 12, déc: 12,
    },
    weekdays: ['lundi', 'mardi', 'mercredi', 'jeudi', 'vendredi', 'samedi', 'dimanche'],
    daySuffixes: ['er'],
    joiners: [],
    monthBeforeDay: false,
  },
  labels: {
    notNames: [
      'nom', 'prénom', 'adresse', 'date', 'montant', 'total', 'numéro', 'compte', 'client', 'facture', 'période',
      'téléphone', 'tél', 'référence', 'solde', 'échéance', 'courriel',
    ],
    alsoNames: [],
    notInAddresses: ['tél', 'téléphone', 'courriel', 'client', 'facture', 'total'],
  },
  streets: {
    words: ['rue', 'avenue', 'boulevard', 'chemin', 'impasse', 'allée', 'quai'],
    endings: [],
    before: [],
    units: [],
  },
  currencies: [
    { code: 'EUR', markers: ['€'] },
    { code: 'CHF', markers: [] },
    { code: 'CAD', markers: ['$'] },
  ],
  postcodes: [
    { pattern: String.raw`\d{5}`, placement: 'before city', example: '75001 Paris' },
    // Belgium and Switzerland.
    { pattern: String.raw`\d{4}`, placement: 'before city', example: '1000 Bruxelles' },
  ],
  // The thin no-break space is what French typography groups with; plain and no-break spaces are what typewriters and word processors print.
  numbers: { decimal: ',', grouping: ['\u202f', '\u00a0', ' '] },
  ocr: { code: 'fra', installed: true, reads: 'pages', markedLetters: 'àâæçéèêëîïôœùûüÿ', script: 'Latin' },
};
