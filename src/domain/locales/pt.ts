import type { LocalePack } from './types.ts';

/** Portuguese, as Portugal and Brazil write it. */
export const pt: LocalePack = {
  locale: 'pt',
  language: 'Portuguese',
  dates: {
    months: {
      janeiro: 1, jan: 1, fevereiro: 2, fev: 2, março: 3, marco: 3, mar: 3, abril: 4, abr: 4, maio: 5, mai: 5,
      junho: 6, jun: 6, julho: 7, jul: 7, agosto: 8, ago: 8, setembro: 9, set: 9, outubro: 10, out: 10,
      novembro: 11, nov: 11, dezembro: 12, dez: 12,
    },
    weekdays: ['segunda-feira', 'terça-feira', 'terca-feira', 'quarta-feira', 'quinta-feira', 'sexta-feira', 'sábado', 'sabado', 'domingo'],
    daySuffixes: [],
    // "14 de março de 2026".
    joiners: ['de'],
    monthBeforeDay: false,
  },
  labels: {
    notNames: [
      'nome', 'morada', 'endereço', 'endereco', 'data', 'montante', 'total', 'número', 'numero', 'conta', 'cliente',
      'fatura', 'factura', 'período', 'periodo', 'telefone', 'referência', 'referencia', 'saldo', 'nif',
    ],
    // "Valor a pagar"; Valor is a surname too.
    alsoNames: ['valor'],
    notInAddresses: ['telefone', 'cliente', 'fatura', 'total'],
  },
  streets: {
    words: ['rua', 'avenida', 'travessa', 'largo', 'praça'],
    endings: [],
    before: [],
    units: [],
  },
  currencies: [
    { code: 'EUR', markers: ['€'] },
    { code: 'BRL', markers: ['R$'] },
  ],
  postcodes: [{ pattern: String.raw`\d{4}-\d{3}`, placement: 'before city', example: '1200-195 Lisboa' }],
  numbers: { decimal: ',', grouping: ['.', ' '] },
  ocr: { code: 'por', installed: true, reads: 'pages', markedLetters: 'áâãàçéêíóôõú', script: 'Latin' },
};
