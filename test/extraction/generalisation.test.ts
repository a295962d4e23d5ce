import { describe, expect, it } from 'vitest';
import { extractFacts, type FactDefinition } from '../../src/domain/extraction/index.ts';
import { parseDate } from '../../src/domain/parsers/date.ts';
import { parseMoney } from '../../src/domain/parsers/money.ts';
import { ibanChecksumValid, parseIdNumber } from '../../src/domain/parsers/text.ts';
import { page } from './helpers.ts';

const dmy = { ocr: false, dateOrder: 'dmy', dateOrderFromDocument: true } as const;
const facts: FactDefinition[] = [
  { fact_id: 'address', label: 'Service address', type: 'address', required: true, document_kinds: [], anchors: ['Service address'] },
  { fact_id: 'account', label: 'Account', type: 'id_number', required: true, document_kinds: [], anchors: ['IBAN', 'Account number'] },
  { fact_id: 'date', label: 'Statement date', type: 'date', required: true, document_kinds: [], anchors: ['Statement date'] },
];
const values = (text: string) => Object.fromEntries(extractFacts({ documentId: 'd', pages: [page(text)], facts }).map((f) => [f.fact_id, f.status === 'resolved' ? f.value : f.status]));

describe('extraction outside US and UK conventions (issue 13)', () => {
  it('reads identifiers with internal spaces whole: IBANs by their mod-97 check, sort code and account', () => {
    expect(parseIdNumber('PT50 0002 0123 1234 5678 9015 4', dmy)?.value).toBe('PT50 0002 0123 1234 5678 9015 4');
    expect(parseIdNumber('GB29 NWBK 6016 1331 9268 19 (current)', dmy)?.value).toBe('GB29 NWBK 6016 1331 9268 19');
    expect(parseIdNumber('30-92-11 55817264', dmy)?.value).toBe('30-92-11 55817264');
    expect(parseIdNumber('HRB 870543', dmy)?.value).toBe('HRB 870543');
    expect(ibanChecksumValid('PT50000201231234567890154')).toBe(true);
    expect(ibanChecksumValid('PT50000201231234567890155')).toBe(false);
    // OCR read the 5 of the check digits as S: repaired only because mod-97 then agrees.
    expect(parseIdNumber('DES8 3182 1312 6298 7699 36', { ...dmy, ocr: true })).toMatchObject({ value: 'DE58 3182 1312 6298 7699 36', reasons: ['ocr_corrected_characters'] });
  });

  it('reads addresses with the postcode before the city, a city-only last line, and stops before unrelated lines', () => {
    expect(values('Service address: Rua Augusta 25, 1200-195 Lisboa').address).toBe('Rua Augusta 25, 1200-195 Lisboa');
    expect(values('Service address:\tVesterbrogade 12\n\t1165 København K\nMeter number:\t12345678').address).toBe('Vesterbrogade 12, 1165 København K');
    expect(values('Service address: Villa 14, Al Wasl Road\nDubai\n\nIBAN\tAE07 0331 2345 6789 0123 456').address).toBe('Villa 14, Al Wasl Road, Dubai');
    expect(values('Service address: 12 MG Road, Indiranagar\nBengaluru 560001\nCustomer service since 1 March 2019').address).toBe('12 MG Road, Indiranagar, Bengaluru 560001');
    expect(values('Service address: 4 Main Street\nDublin D02 X285').address).toBe('4 Main Street, Dublin D02 X285');
  });

  it('reads day-first dates in French, German, Portuguese and Danish, and takes the day first from the document’s conventions', () => {
    for (const [text, iso] of [['14 mars 2026', '2026-03-14'], ['14. März 2026', '2026-03-14'], ['14 de março de 2026', '2026-03-14'], ['14. marts 2026', '2026-03-14'], ['1er avril 2026', '2026-04-01']]) {
      expect(parseDate(text!, dmy)?.value, text).toBe(iso);
    }
    expect(values('Statement date: 03/04/2026\nIBAN: PT50 0002 0123 1234 5678 9015 4').date).toBe('2026-04-03');
    expect(values('Statement date: 03/04/2026\nTotal: 1.234,56 kr.').date).toBe('2026-04-03');
  });

  it('reads amounts with decimal commas, rupees in lakhs, dirhams and kroner', () => {
    for (const [text, value] of [['1.234,56 €', '1234.56'], ['kr. 1.234,56', '1234.56'], ['₹1,23,456.00', '123456.00'], ['Rs. 4,500.00', '4500.00'], ['AED 1,234.56', '1234.56']]) {
      expect(parseMoney(text!, dmy)?.value, text).toBe(value);
    }
    expect(parseMoney('$1,23,456', dmy)).toBeNull();
  });
});
