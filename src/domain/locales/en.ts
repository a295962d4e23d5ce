import type { LocalePack } from './types.ts';

/**
 * English, as pay stubs and bills from the US, the UK, Ireland, Canada, Australia, India and the
 * Gulf write it. English documents travel: its currencies are the ones such documents quote,
 * wherever the issuer is, including those of countries without a pack of their own (CHF, HUF, NOK, ¥) and CZK,
 * which the Czech pack also names.
 */
export const en: LocalePack = {
  locale: 'en',
  language: 'English',
  dates: {
    months: {
      january: 1, jan: 1, february: 2, feb: 2, march: 3, mar: 3, april: 4, apr: 4, may: 5, june: 6, jun: 6,
      july: 7, jul: 7, august: 8, aug: 8, september: 9, sept: 9, sep: 9, october: 10, oct: 10,
      november: 11, nov: 11, december: 12, dec: 12,
    },
    weekdays: [
      'monday', 'mon', 'tuesday', 'tues', 'tue', 'wednesday', 'wed', 'thursday', 'thurs', 'thur', 'thu',
      'friday', 'fri', 'saturday', 'sat', 'sunday', 'sun',
    ],
    daySuffixes: ['st', 'nd', 'rd', 'th'],
    joiners: ['of'],
    monthBeforeDay: true,
  },
  labels: {
    notNames: [
      'account', 'acct', 'address', 'amount', 'balance', 'code', 'current', 'customer', 'date', 'deductions',
      'department', 'dept', 'description', 'due', 'earnings', 'email', 'employee', 'employer', 'fax', 'gross',
      'hours', 'id', 'invoice', 'meter', 'name', 'net', 'no', 'number', 'payment', 'period', 'phone', 'previous',
      'rate', 'reference', 'ref', 'ssn', 'statement', 'status', 'tariff', 'tax', 'tel', 'total', 'type', 'usage', 'ytd',
    ],
    alsoNames: ['bill', 'billing', 'check', 'company', 'holder', 'location', 'page', 'pay', 'plan', 'service', 'supply'],
    notInAddresses: ['since', 'tel', 'phone', 'email', 'e-mail', 'customer', 'account', 'invoice', 'due', 'period', 'total'],
  },
  streets: {
    words: [
      'street', 'st', 'avenue', 'ave', 'road', 'rd', 'lane', 'ln', 'drive', 'dr', 'boulevard', 'blvd', 'court', 'ct',
      'way', 'place', 'pl', 'terrace', 'close', 'crescent', 'cres', 'highway', 'hwy', 'parkway', 'pkwy', 'square',
      'sq', 'circle', 'cir', 'trail', 'row', 'gardens', 'grove', 'hill', 'walk', 'mews',
      // Indian addresses in English keep their Hindi street words.
      'marg', 'nagar',
    ],
    endings: [],
    before: [],
    units: ['apt', 'apartment', 'unit', 'suite', 'ste', 'flat', 'floor', 'fl', 'villa', 'office'],
  },
  currencies: [
    { code: 'USD', markers: ['$', 'US$'] },
    { code: 'GBP', markers: ['£'] },
    { code: 'EUR', markers: ['€'] },
    { code: 'CAD', markers: ['$', 'CA$', 'C$'] },
    { code: 'AUD', markers: ['$', 'A$'] },
    { code: 'INR', markers: ['₹', 'Rs.'] },
    { code: 'AED', markers: ['Dhs.'] },
    { code: 'CHF', markers: [] },
    { code: 'CZK', markers: ['Kč'] },
    { code: 'HUF', markers: ['Ft'] },
    { code: 'NOK', markers: ['kr.'] },
    { code: 'JPY', markers: ['¥'] },
    { code: 'CNY', markers: ['¥'] },
  ],
  postcodes: [
    // A US ZIP after its state code or a comma: alone, five digits are a house number.
    { pattern: String.raw`(?:\b[A-Z]{2}\.?\s+|,\s*)\d{5}(?:-\d{4})?`, placement: 'after city', example: 'Springfield, IL 62704' },
    { pattern: String.raw`\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}`, placement: 'after city', example: 'London SW1A 1AA' },
    { pattern: String.raw`\b[A-Z]\d[A-Z]\s?\d[A-Z]\d`, placement: 'after city', example: 'Ottawa ON K1A 0B1' },
    // Ireland's Eircode: a routing key, then four of its own letters and digits.
    { pattern: String.raw`\b[AC-FHKNPRTV-Y]\d{2}\s?[AC-FHKNPRTV-Y\d]{4}`, placement: 'after city', example: 'Dublin 2 D02 X285' },
    // India's six-digit PIN after the city, "Bengaluru 560001" or "Mumbai - 400001".
    { pattern: String.raw`\p{L}\s*[-–]?\s*\d{3}\s?\d{3}`, placement: 'after city', example: 'Mumbai - 400001' },
  ],
  numbers: { decimal: '.', grouping: [','] },
  ocr: { code: 'eng', installed: true, reads: 'pages', markedLetters: '', script: 'Latin' },
};
