import type { LocalePack } from './types.ts';

/**
 * Irish. Most Irish documents are in English (see en.ts for the Eircode); what this pack adds is
 * the Irish names of months and fields, and the fadas of Irish names ("Seán", "Ní Bhriain").
 */
export const ga: LocalePack = {
  locale: 'ga',
  language: 'Irish',
  dates: {
    // With and without their fadas, which OCR drops; two months are two words.
    months: {
      eanáir: 1, eanair: 1, feabhra: 2, márta: 3, marta: 3, aibreán: 4, aibrean: 4, bealtaine: 5, meitheamh: 6,
      iúil: 7, iuil: 7, lúnasa: 8, lunasa: 8, 'meán fómhair': 9, 'mean fomhair': 9, 'deireadh fómhair': 10,
      'deireadh fomhair': 10, samhain: 11, nollaig: 12,
    },
    weekdays: ['dé luain', 'dé máirt', 'dé céadaoin', 'déardaoin', 'dé haoine', 'dé sathairn', 'dé domhnaigh'],
    daySuffixes: [],
    joiners: [],
    monthBeforeDay: false,
  },
  labels: {
    notNames: ['ainm', 'seoladh', 'dáta', 'méid', 'iomlán', 'uimhir', 'cuntas', 'custaiméir', 'sonrasc', 'tréimhse', 'fón', 'guthán'],
    alsoNames: [],
    notInAddresses: ['fón', 'guthán', 'ríomhphost', 'iomlán'],
  },
  streets: {
    words: ['sráid', 'bóthar', 'lána', 'ascaill', 'cearnóg'],
    endings: [],
    before: [],
    units: [],
  },
  currencies: [{ code: 'EUR', markers: ['€'] }],
  postcodes: [
    { pattern: String.raw`\b[AC-FHKNPRTV-Y]\d{2}\s?[AC-FHKNPRTV-Y\d]{4}`, placement: 'after city', example: 'Gaillimh H91 E2K3' },
  ],
  numbers: { decimal: '.', grouping: [','] },
  /*
   * Irish reads only the words read again for their marks, not pages: its fadas ("Ní", "Seán",
   * "Órla") are read by no other model, and Irish names are common on Irish documents. A word is
   * read in Irish in ~15–30 ms; a page in all six installed languages would be ~20 % slower for
   * every page.
   */
  ocr: { code: 'gle', installed: true, reads: 'marks', markedLetters: 'áéíóú', script: 'Latin' },
};
