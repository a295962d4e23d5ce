import type { LocalePack } from './types.ts';

/** Spanish, as Spain writes it. */
export const es: LocalePack = {
  locale: 'es',
  language: 'Spanish',
  dates: {
    months: {
      enero: 1, ene: 1, febrero: 2, feb: 2, marzo: 3, mar: 3, abril: 4, abr: 4, mayo: 5, may: 5, junio: 6, jun: 6,
      julio: 7, jul: 7, agosto: 8, ago: 8, septiembre: 9, setiembre: 9, sept: 9, sep: 9, octubre: 10, oct: 10,
      noviembre: 11, nov: 11, diciembre: 12, dic: 12,
    },
    weekdays: ['lunes', 'martes', 'miércoles', 'miercoles', 'jueves', 'viernes', 'sábado', 'sabado', 'domingo'],
    daySuffixes: [],
    // "14 de marzo de 2026".
    joiners: ['de'],
    monthBeforeDay: false,
  },
  labels: {
    notNames: [
      'nombre', 'apellidos', 'dirección', 'direccion', 'domicilio', 'fecha', 'importe', 'total', 'número', 'numero',
      'cuenta', 'cliente', 'factura', 'periodo', 'período', 'teléfono', 'telefono', 'referencia', 'saldo',
    ],
    alsoNames: [],
    notInAddresses: ['teléfono', 'telefono', 'correo', 'cliente', 'factura', 'total'],
  },
  streets: {
    words: [],
    endings: [],
    // "C/ Mayor 7", "Avda. de América 12", "Pza. Mayor 1", "Pso. de Gracia 40".
    before: ['c/', 'calle', 'avda.', 'av.', 'pza.', 'plaza', 'pso.', 'paseo'],
    units: [],
  },
  currencies: [{ code: 'EUR', markers: ['€'] }],
  postcodes: [{ pattern: String.raw`\d{5}`, placement: 'before city', example: '28013 Madrid' }],
  numbers: { decimal: ',', grouping: ['.'] },
  // No Spanish model is installed: Spanish pages are read by the others (French, Portuguese and
  // German have its accented vowels; "ñ" is read as "n" at worst).
  ocr: { code: 'spa', installed: false, reads: 'pages', markedLetters: 'áéíñóúü', script: 'Latin' },
};
