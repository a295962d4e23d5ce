import { describe, expect, it } from 'vitest';
import { extractFacts, type ExtractedFact, type FactDefinition } from '../../src/domain/extraction/index.ts';
import { parseAddress } from '../../src/domain/parsers/address.ts';
import { parseDate } from '../../src/domain/parsers/date.ts';
import { parseMoney } from '../../src/domain/parsers/money.ts';
import { parseIdNumber, parseName } from '../../src/domain/parsers/text.ts';
import { fact, page } from './helpers.ts';

/**
 * Issue 28, scans (third session): what OCR does to a page that the rules downstream must survive.
 * Every example is written for these tests; none is copied from the evaluation corpus.
 */
const one = (text: string, f: FactDefinition, method: 'plain' | 'ocr' = 'ocr') =>
  extractFacts({ documentId: 'doc_1', pages: [page(text, method)], facts: [f] })[0]! as ExtractedFact;
const ocr = { ocr: true, dateOrder: 'dmy', dateOrderFromDocument: false } as const;
const typed = { ...ocr, ocr: false } as const;

describe('specks between a label and its value', () => {
  it('passes over a cell of specks to the value in the next cell', () => {
    const f = one('Policyholder:\t‘\tMarta Nowak\nRenewal: 01.02.2027', fact('name', ['Policyholder']));
    expect(f).toMatchObject({ status: 'resolved', value: 'Marta Nowak' });
    expect(f.evidence[0]!.quote).toBe('Marta Nowak');
  });

  it('takes a lone symbol left after a label for a speck, and reads the value on the next line', () => {
    expect(one('BORROWER ®\nTOMASZ ZIELINSKI\nLoan no: 55120', fact('name', ['Borrower']))).toMatchObject({ status: 'resolved', value: 'TOMASZ ZIELINSKI' });
    expect(one('Amount due ©\n£ 412.80', fact('money', ['Amount due']))).toMatchObject({ status: 'resolved', value: '412.80' });
  });

  it('keeps a currency left after a label: it is part of the amount', () => {
    expect(one('Total €\t1.204,00', fact('money', ['Total']))).toMatchObject({ status: 'resolved', value: '1204.00' });
  });

  it('does not skip specks in typed text', () => {
    expect(one('Policyholder:\t‘\tMarta Nowak', fact('name', ['Policyholder']), 'plain').status).not.toBe('resolved');
  });
});

describe('two values joined where OCR lost a column gap', () => {
  const header = 'PREMIUM\tINSURED\tRENEWAL DATE\n£ 310.00\tOLIVIA GRANT Sep 30, 2026';
  const facts = [fact('name', ['Insured'], 'insured'), fact('date', ['Renewal date'], 'renewal'), fact('money', ['Premium'], 'premium')];
  const read = () => Object.fromEntries(extractFacts({ documentId: 'doc_1', pages: [page(header, 'ocr')], facts }).map((f) => [f.fact_id, f])) as Record<string, ExtractedFact>;
  it('ends a name before a date that follows it', () => {
    expect(parseName('OLIVIA GRANT Sep 30, 2026', ocr)?.value).toBe('OLIVIA GRANT');
    expect(parseName('Carmen Ruiz 3 marzo 2026', ocr)?.value).toBe('Carmen Ruiz');
    // Month names that are also given names stay names when no date follows.
    expect(parseName('June May Sanders', typed)?.value).toBe('June May Sanders');
    expect(read().insured).toMatchObject({ status: 'resolved', value: 'OLIVIA GRANT' });
  });

  it('reads a date that ends the joined cell', () => {
    const f = read().renewal!;
    expect(f).toMatchObject({ status: 'resolved', value: '2026-09-30' });
    expect(f.evidence[0]!.quote).toBe('Sep 30, 2026');
    expect(f.reason_codes).toContain('ocr_corrected_characters');
    expect(read().premium).toMatchObject({ status: 'resolved', value: '310.00' });
  });
});

describe('month names without their marks', () => {
  it.each([
    ['12. Marz 2025', '2025-03-12'],
    ['3 fevrier 2026', '2026-02-03'],
    ['1 aout 2024', '2024-08-01'],
    ['7 decembre 2025', '2025-12-07'],
    ['9 pazdziernika 2026', '2026-10-09'],
  ])('%s', (text, value) => {
    expect(parseDate(text, ocr)?.value).toBe(value);
  });
});

describe('addresses on scans', () => {
  it('passes over a line of specks inside an address', () => {
    const parsed = parseAddress({ text: 'Unit 4, Corniche Road', start: 0 }, [{ text: '·', start: 30 }, { text: 'Doha', start: 40 }], true);
    expect(parsed?.value).toBe('Unit 4, Corniche Road, Doha');
  });

  it('repairs a UK postcode read with a letter for its digit after the town', () => {
    const parsed = parseAddress({ text: '8 Quarry Lane', start: 0 }, [{ text: 'Leeds LS6 ZQT', start: 20 }], true);
    expect(parsed).toMatchObject({ value: '8 Quarry Lane, Leeds LS6 2QT', reasons: ['ocr_corrected_characters'] });
    expect(parseAddress({ text: '8 Quarry Lane, Leeds LS6 ZQT', start: 0 }, [], true)).toMatchObject({ value: '8 Quarry Lane, Leeds LS6 2QT', reasons: ['ocr_corrected_characters'] });
    // Typed text is never repaired, and a town without a postcode is not made into one.
    expect(parseAddress({ text: '8 Quarry Lane', start: 0 }, [{ text: 'Leeds LS6 ZQT', start: 20 }], false)?.value).not.toContain('2QT');
    expect(parseAddress({ text: '3 Mill Road', start: 0 }, [{ text: 'Boston', start: 20 }], true)?.value).toBe('3 Mill Road, Boston');
  });
});

describe('identifiers with a letter prefix', () => {
  it('keeps two or more capitals before the first digit as letters, though each looks like a digit', () => {
    expect(parseIdNumber('BZ-550214/07', ocr)?.value).toBe('BZ-550214/07');
    expect(parseIdNumber('SO 4471902', ocr)?.value).toBe('SO 4471902');
    expect(parseIdNumber('GQ88201734', ocr)?.value).toBe('GQ88201734');
  });

  it('still repairs look-alikes among the digits, and a lone leading one', () => {
    expect(parseIdNumber('BZ-55O214/07', ocr)).toMatchObject({ value: 'BZ-550214/07', reasons: ['ocr_corrected_characters'] });
    expect(parseIdNumber('O1442S3', ocr)?.value).toBe('0144253');
  });
});

describe('floor ordinals read as degree signs', () => {
  it('reads "°" after a number in an OCR address as the ordinal "º"', () => {
    expect(parseAddress({ text: 'Rua do Ouro 40, 2° esq.', start: 0 }, [{ text: '1100-060 Lisboa', start: 30 }], true)?.value).toBe('Rua do Ouro 40, 2º esq., 1100-060 Lisboa');
    expect(parseAddress({ text: 'Calle Real 7, 4° B', start: 0 }, [], false)?.value).toBe('Calle Real 7, 4° B');
  });
});

describe('a thousands "1" read as a letter', () => {
  it.each([
    ['I 480,00 €', '1480.00'],
    ['PLN l 905,10', '1905.10'],
    ['| 250 000,00 SEK', '1250000.00'],
  ])('%s', (text, value) => {
    expect(parseMoney(text, ocr)).toMatchObject({ value, reasons: ['ocr_corrected_characters'] });
  });

  it('only before a group of three digits, and only in OCR text', () => {
    expect(parseMoney('I 48', ocr)).toBeNull();
    expect(parseMoney('I 480,00 €', typed)).toBeNull();
  });
});
