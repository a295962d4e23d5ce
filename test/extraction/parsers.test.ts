import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ParseContext } from '../../src/domain/parsers/common.ts';
import { repairOcrDigits } from '../../src/domain/parsers/common.ts';
import { dateOrderHint, inferDateOrder, parseDate } from '../../src/domain/parsers/date.ts';
import { currencyOfMarker, parseMoney, parseTypedMoney, toDecimal } from '../../src/domain/parsers/money.ts';
import { parseNumber } from '../../src/domain/parsers/number.ts';
import { parseAddress } from '../../src/domain/parsers/address.ts';
import { parseIdNumber, parseName, parseString } from '../../src/domain/parsers/text.ts';

const US: ParseContext = { ocr: false, dateOrder: 'mdy', dateOrderFromDocument: false };
const UK: ParseContext = { ocr: false, dateOrder: 'dmy', dateOrderFromDocument: true };
const OCR: ParseContext = { ...US, ocr: true };

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const pad = (n: number) => String(n).padStart(2, '0');

describe('parseDate', () => {
  it.each([
    ['2026-03-14', '2026-03-14'],
    ['2026/3/4', '2026-03-04'],
    ['03/14/2026', '2026-03-14'],
    ['14/03/2026', '2026-03-14'],
    ['14.03.2026', '2026-03-14'],
    ['3-14-26', '2026-03-14'],
    ['March 14, 2026', '2026-03-14'],
    ['Mar 14 2026', '2026-03-14'],
    ['Mar. 14th, 2026', '2026-03-14'],
    ['14 March 2026', '2026-03-14'],
    ['14-Mar-2026', '2026-03-14'],
    ['14 Mar 26', '2026-03-14'],
    ['Saturday, March 14, 2026', '2026-03-14'],
    ['2026 Mar 14', '2026-03-14'],
    ['Sept 1, 2025', '2025-09-01'],
    ['13. 11.2026', '2026-11-13'],
  ])('reads %s', (text, iso) => {
    expect(parseDate(text, US)?.value).toBe(iso);
  });

  it('reads an ambiguous numeric date by the configured order and says so', () => {
    const us = parseDate('03/04/2026', US)!;
    expect(us.value).toBe('2026-03-04');
    expect(us.reasons).toContain('ambiguous_date_order');
    expect(us.quality).toBeLessThan(1);
    const uk = parseDate('03/04/2026', UK)!;
    expect(uk.value).toBe('2026-04-03');
    expect(uk.reasons).toContain('date_order_from_document');
    expect(parseDate('04/04/2026', US)!.reasons).not.toContain('ambiguous_date_order');
  });

  it('refuses impossible dates and non-dates', () => {
    for (const text of ['02/30/2026', '13/13/2026', '2026-02-29', 'TBD', '1234.56', 'Mar 2026', '']) {
      expect(parseDate(text, US), text).toBeNull();
    }
    expect(parseDate('2024-02-29', US)?.value).toBe('2024-02-29');
  });

  it('points its span at the date, after a weekday and leading space', () => {
    const input = '  Friday, March 13, 2026 (paid)';
    const parsed = parseDate(input, US)!;
    expect(input.slice(parsed.start, parsed.end)).toBe('March 13, 2026');
  });

  it('repairs OCR look-alikes inside numeric dates only on OCR pages', () => {
    expect(parseDate('03/l4/2O26', US)).toBeNull();
    const parsed = parseDate('03/l4/2O26', OCR)!;
    expect(parsed.value).toBe('2026-03-14');
    expect(parsed.reasons).toContain('ocr_corrected_characters');
    expect(parseDate('14-Sep-2026', OCR)?.value).toBe('2026-09-14');
  });

  it('reads dates whose full stop or separator OCR damaged, on OCR pages only, when the calendar accepts them', () => {
    expect(parseDate('175 februar 2026', OCR)).toMatchObject({ value: '2026-02-17', start: 0, end: 16, reasons: ['ocr_corrected_characters'] });
    expect(parseDate('175 februar 2026', US)).toBeNull();
    expect(parseDate('2025-1 220', OCR)?.value).toBe('2025-12-20');
    expect(parseDate('12.02:2024', { ...OCR, dateOrder: 'dmy' })?.value).toBe('2024-02-12');
    expect(parseDate('12.02:2024', US)).toBeNull();
    expect(parseDate('03/1 4/2026', OCR)?.value).toBe('2026-03-14');
    expect(parseDate('2025-1 299', OCR)).toBeNull();
    // Without a split there is nothing to say where a separator went: not read.
    expect(parseDate('0223/2024', OCR)).toBeNull();
  });

  it('reads an OCR day joined to its month name, or with a comma for its full stop', () => {
    expect(parseDate('20janvier 2025', OCR)?.value).toBe('2025-01-20');
    expect(parseDate('9, February 2024', OCR)?.value).toBe('2024-02-09');
    expect(parseDate('31, February 2024', OCR)).toBeNull();
    expect(parseDate('20janvier 2025', US)).toBeNull();
  });

  it('infers the day/month order from the document', () => {
    expect(inferDateOrder(['Period 01/02/2026 - 28/02/2026'])).toBe('dmy');
    expect(inferDateOrder(['Due 02/28/2026'])).toBe('mdy');
    expect(inferDateOrder(['01/02/2026 and 28/02/2026 and 02/28/2026'])).toBeUndefined();
    expect(inferDateOrder(['Issued 14 March 2026'])).toBe('dmy');
    expect(inferDateOrder(['Issued March 14, 2026'])).toBe('mdy');
    expect(inferDateOrder(['Total £12.00'])).toBe('dmy');
    // The currency outweighs an address abroad (a PO box for payments).
    expect(inferDateOrder(['Amount due: 158,77 €\nMailing address: PO Box 3648, Springfield, IL 62701\n80331 München'])).toBe('dmy');
    expect(inferDateOrder(['Amount due: $158.77\nMailing address: PO Box 12, Leeds LS1 4DY'])).toBe('mdy');
    expect(inferDateOrder(['nothing here'])).toBeUndefined();
    expect(dateOrderHint('DD/MM/YYYY')).toBe('dmy');
    expect(dateOrderHint('mm-dd-yy')).toBe('mdy');
  });

  it('round-trips every calendar date through every written format (property)', () => {
    const day = fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2069-12-31T00:00:00Z'), noInvalidDate: true });
    fc.assert(
      fc.property(day, fc.integer({ min: 0, max: 9 }), (date, style) => {
        const y = date.getUTCFullYear();
        const m = date.getUTCMonth() + 1;
        const d = date.getUTCDate();
        const iso = `${y}-${pad(m)}-${pad(d)}`;
        const month = MONTHS[m - 1]!;
        const formats: Array<[string, ParseContext]> = [
          [iso, US],
          [`${pad(m)}/${pad(d)}/${y}`, US],
          [`${m}/${d}/${y}`, US],
          [`${pad(d)}/${pad(m)}/${y}`, UK],
          [`${pad(d)}.${pad(m)}.${y}`, UK],
          [`${month} ${d}, ${y}`, US],
          [`${month.slice(0, 3)} ${pad(d)} ${y}`, US],
          [`${d} ${month} ${y}`, US],
          [`${pad(d)}-${month.slice(0, 3)}-${y}`, US],
          [`${y}/${pad(m)}/${pad(d)}`, US],
        ];
        const [text, context] = formats[style]!;
        const parsed = parseDate(`${text} trailing words`, context);
        expect(parsed?.value).toBe(iso);
        expect(`${text} trailing words`.slice(parsed!.start, parsed!.end)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });
});

describe('parseMoney', () => {
  it('reads an OCR amount whose currency code has a speck read as a mark after it', () => {
    expect(parseMoney('GBP. 13,192.65', OCR)).toMatchObject({ value: '13192.65', start: 0, end: 14, reasons: ['ocr_corrected_characters'] });
    expect(parseMoney('INR: 20,617.80', OCR)?.value).toBe('20617.80');
    expect(parseMoney('GBP. 13,192.65', US)).toBeNull();
  });
  it('reads an OCR amount with a space after its decimal mark when thousands groups confirm the mark', () => {
    expect(parseMoney('$24,979. 34', OCR)).toMatchObject({ value: '24979.34', start: 0, end: 11 });
    expect(parseMoney('Rs. 7,297. 03', OCR)?.value).toBe('7297.03');
    expect(parseMoney('7.297, 03 €', OCR)?.value).toBe('7297.03');
    expect(parseMoney('$979. 34', OCR)?.value).not.toBe('979.34');
  });

  it.each([
    ['$1,234.56', '1234.56'],
    ['USD 1234.5', '1234.50'],
    ['1234.56 USD', '1234.56'],
    ['$ 1,234.56', '1234.56'],
    ['1.234,56 €', '1234.56'],
    ['1 234,56 €', '1234.56'],
    ['£12', '12.00'],
    ['(1,234.56)', '-1234.56'],
    ['-$12.00', '-12.00'],
    ['$-12.00', '-12.00'],
    ['1,234', '1234.00'],
    ['1.234', '1234.00'],
    ['12,5', '12.50'],
    ['0.99', '0.99'],
    ['$1,234.56 $14,000.00', '1234.56'],
  ])('reads %s', (text, value) => {
    expect(parseMoney(text, US)?.value).toBe(value);
  });

  it('refuses what is not an amount', () => {
    for (const text of ['$1,23,456', 'TBD', '03/14/2026', '12:30', '15%', '1.234.5', 'YTD $100.00', '']) {
      expect(parseMoney(text, US), text).toBeNull();
    }
  });

  it('trusts a currency and cents more than a bare integer', () => {
    expect(parseMoney('$1,234.56', US)!.quality).toBe(1);
    expect(parseMoney('1234', US)!.quality).toBeLessThan(0.9);
  });

  it('repairs OCR look-alikes on OCR pages', () => {
    expect(parseMoney('$1,2O4.5G', US)).toBeNull();
    expect(parseMoney('$1,2O4.5G', OCR)?.value).toBe('1204.56');
  });

  it('reads a decimal point OCR turned into the group mark only when the groups confirm it, on OCR pages', () => {
    expect(parseMoney('$4,301,90', US)).toBeNull();
    expect(parseMoney('$4,301,90', OCR)).toMatchObject({ value: '4301.90', reasons: ['ocr_corrected_characters'] });
    expect(parseMoney('28.931.45 €', OCR)?.value).toBe('28931.45');
    expect(parseMoney('$4,30,90', OCR)).toBeNull();
    expect(parseMoney('$1,234,567', OCR)?.value).toBe('1234567.00');
  });

  it('round-trips every amount through grouped, ungrouped, coded and continental styles (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9_999_999_99 }), fc.integer({ min: 0, max: 6 }), fc.boolean(), (cents, style, negative) => {
        const integer = Math.floor(cents / 100);
        const fraction = pad(cents % 100);
        const us = String(integer).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
        const eu = String(integer).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
        const text = [
          `$${us}.${fraction}`,
          `$${integer}.${fraction}`,
          `USD ${us}.${fraction}`,
          `${us}.${fraction} USD`,
          `${eu},${fraction} €`,
          `£ ${us}.${fraction}`,
          `€${integer},${fraction}`,
        ][style]!;
        const input = negative ? `(${text})` : text;
        const parsed = parseMoney(`${input}  next`, US);
        const expected = `${integer}.${fraction}`;
        expect(parsed?.value).toBe(negative && cents > 0 ? `-${expected}` : expected);
        expect(toDecimal(`${us}.${fraction}`)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe('parseNumber', () => {
  it.each([
    ['1,234.50', '1234.50'],
    ['40', '40'],
    ['-3.5', '-3.5'],
    ['12,5', '12.5'],
    ['007', '7'],
  ])('reads %s', (text, value) => {
    expect(parseNumber(text, US)?.value).toBe(value);
  });
  it('refuses dates, times and words', () => {
    for (const text of ['03/14/2026', '12:30', 'ten', '12,3456']) expect(parseNumber(text, US), text).toBeNull();
  });
});

describe('parseName', () => {
  it.each([
    ['Jane Q. Doe', 'Jane Q. Doe'],
    ['JANE DOE', 'JANE DOE'],
    ["Mary O'Brien", "Mary O'Brien"],
    ['Anna Smith-Jones', 'Anna Smith-Jones'],
    ['John van der Berg', 'John van der Berg'],
    ['van der Berg, Sarah', 'van der Berg, Sarah'],
    ['Doe, Jane', 'Doe, Jane'],
    ['Robert Lee Jr.', 'Robert Lee Jr.'],
    ['Jane Doe, 12 Oak Street', 'Jane Doe'],
    ['Jane Doe SSN: XXX-XX-1234', 'Jane Doe'],
    ['Jane Doe Pay period: 03/01/2026', 'Jane Doe'],
    ['Bill Page', 'Bill Page'],
    ['José García', 'José García'],
  ])('reads %s', (text, value) => {
    expect(parseName(text, US)?.value).toBe(value);
  });

  it('refuses labels and numbers, and marks one-word names', () => {
    for (const text of ['ID 12345', '12345', 'Number: 5', 'earnings statement', '']) expect(parseName(text, US), text).toBeNull();
    expect(parseName('Madonna', US)!.reasons).toContain('single_word_name');
  });

  it('reads a middle initial whose full stop OCR misread, on OCR pages only', () => {
    expect(parseName('Hannah D: Price', OCR)).toMatchObject({ value: 'Hannah D. Price', start: 0, end: 15, reasons: ['ocr_corrected_characters'] });
    expect(parseName('PRIYA O, MCDONALD', OCR)?.value).toBe('PRIYA O. MCDONALD');
    expect(parseName('Aoife |. Byrne', OCR)?.value).toBe('Aoife I. Byrne');
    expect(parseName('Hannah D: Price', US)?.value).toBe('Hannah');
    expect(parseName('Doe, Jane', OCR)?.value).toBe('Doe, Jane');
    expect(parseName('Kowalski, ‘Michael', OCR)?.value).toBe('Kowalski, Michael');
  });
});

describe('parseString and parseIdNumber', () => {
  it('reads the rest of the cell up to an inline label', () => {
    expect(parseString('Acme Payroll Services, Inc.', US)?.value).toBe('Acme Payroll Services, Inc.');
    expect(parseString('Acme Corp Location: Springfield', US)?.value).toBe('Acme Corp');
    expect(parseString(' - ', US)).toBeNull();
  });
  it('does not take a lone label word whose colon OCR misread for a value ("Company code!")', () => {
    expect(parseString('code!', OCR)).toBeNull();
    expect(parseString('ID‘', OCR)).toBeNull();
    expect(parseString('Initech.', OCR)?.value).toBe('Initech.');
  });
  it('reads an OCR IBAN before repairing digit look-alikes, and repairs the check digits of one printed without spaces', () => {
    expect(parseIdNumber('GB95 AIBK 9858 6234 2983 39', OCR)?.value).toBe('GB95 AIBK 9858 6234 2983 39');
    expect(parseIdNumber('DES7735429975453257452', OCR)?.value).toBe('DE57735429975453257452');
    // A speck read as a full stop between two groups.
    expect(parseIdNumber('GB95 AIBK 9858.6234 2983 39', OCR)?.value).toBe('GB95 AIBK 9858 6234 2983 39');
    // A repair the checksum does not confirm is not made.
    expect(parseIdNumber('DES7735429975453257453', OCR)?.value).not.toBe('DE57735429975453257453');
  });
  it('reads identifiers', () => {
    expect(parseIdNumber('ACC-0012-3345 (active)', US)?.value).toBe('ACC-0012-3345');
    expect(parseIdNumber('# 12-3456789', US)?.value).toBe('12-3456789');
    expect(parseIdNumber('1234 5678 9012', US)?.value).toBe('1234 5678 9012');
    expect(parseIdNumber('XXX-XX-1234', US)?.value).toBe('XXX-XX-1234');
    expect(parseIdNumber('pending', US)).toBeNull();
  });
  it('repairs OCR digits only inside digit-dominated tokens', () => {
    expect(repairOcrDigits('03/l4/2O26 Sep 14-Sep-2026').text).toBe('03/14/2026 Sep 14-Sep-2026');
  });
});

describe('parseAddress', () => {
  const piece = (text: string, start = 0) => ({ text, start });
  it('joins street, unit and city lines and stops after the postal code', () => {
    const parsed = parseAddress(piece('12 Oak Street'), [piece('Apt 4B', 20), piece('Springfield, IL 62704', 30), piece('Account number: 55', 60)])!;
    expect(parsed.value).toBe('12 Oak Street, Apt 4B, Springfield, IL 62704');
    expect(parsed.spans).toEqual([{ start: 0, end: 13 }, { start: 20, end: 26 }, { start: 30, end: 51 }]);
    expect(parsed.reasons).toEqual([]);
  });
  it('takes a UK town line when a postcode follows it', () => {
    expect(parseAddress(piece('Flat 2'), [piece('10 High Street'), piece('London'), piece('SW1A 1AA'), piece('Tariff Standard')])!.value)
      .toBe('Flat 2, 10 High Street, London, SW1A 1AA');
  });
  it('does not take a four-digit house number for a continental postcode', () => {
    expect(parseAddress(piece('2397 Cedar Lane'), [piece('Raleigh, NC 27615')])!.value).toBe('2397 Cedar Lane, Raleigh, NC 27615');
  });
  it('reads a UK postcode whose digits OCR read as letters, on OCR pages only', () => {
    const ocr = parseAddress(piece('62 Mill Avenue'), [piece('Manchester', 20), piece('MI 3NP', 40)], true)!;
    expect(ocr.value).toBe('62 Mill Avenue, Manchester, M1 3NP');
    expect(ocr.reasons).toContain('ocr_corrected_characters');
    expect(parseAddress(piece('127 Maple Close'), [piece('London', 20), piece('SWIA 4HJ', 40)], true)!.value).toBe('127 Maple Close, London, SW1A 4HJ');
    expect(parseAddress(piece('62 Mill Avenue'), [piece('Manchester', 20), piece('MI 3NP', 40)])!.value).not.toContain('3NP');
  });
  it('refuses text that does not start like an address', () => {
    expect(parseAddress(piece('Thank you for your business'), [])).toBeNull();
    expect(parseAddress(piece('Meter: 12'), [])).toBeNull();
  });
});

describe('parseTypedMoney (an amount typed into a form, issue 24 §2: one money parser)', () => {
  it('says which currency marker it read', () => {
    expect(parseMoney('£1,250', US)?.currency).toBe('£');
    expect(parseMoney('1250 EUR', US)?.currency).toBe('EUR');
    expect(parseMoney('1250', US)).not.toHaveProperty('currency');
    expect(['£', 'US$', 'eur', 'Rs.', 'Dhs', '$', 'kr', '¥'].map(currencyOfMarker)).toEqual(['GBP', 'USD', 'EUR', 'INR', 'AED', undefined, undefined, undefined]);
  });

  it.each([
    ['4200.50', undefined, '4200.50'],
    ['4,200', undefined, '4200.00'],
    ['1,250.5', undefined, '1250.50'],
    ['1.250,50', undefined, '1250.50'],
    ['  £1,250  ', 'GBP', '1250.00'],
    ['1250 EUR', 'EUR', '1250.00'],
    ['0', undefined, '0.00'],
    ['US$ 12', 'USD', '12.00'],
    ['US$ 12', 'CAD', null],
    ['1250 GBP', 'EUR', null],
    ['12 apples', undefined, null],
    ['-5', undefined, null],
    ['(5)', undefined, null],
    ['5)', undefined, null],
    ['1e5', undefined, null],
    ['', undefined, null],
  ])('%s in %s → %s', (text, currency, expected) => {
    expect(parseTypedMoney(text, currency)).toBe(expected);
  });
});
