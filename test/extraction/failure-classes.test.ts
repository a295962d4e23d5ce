import { describe, expect, it } from 'vitest';
import { extractFacts, type ExtractedFact, type FactDefinition } from '../../src/domain/extraction/index.ts';
import { fact, page } from './helpers.ts';

/** Issue 28 §2: failure classes seen on documents of kinds nobody tuned for. The examples are ours. */
const run = (text: string, facts: FactDefinition[], method: 'plain' | 'ocr' = 'plain') =>
  Object.fromEntries(extractFacts({ documentId: 'doc_1', pages: [page(text, method)], facts }).map((f) => [f.fact_id, f])) as Record<string, ExtractedFact>;
const one = (text: string, f: FactDefinition, method: 'plain' | 'ocr' = 'plain') => run(text, [f], method)[f.fact_id]!;
const quote = (f: ExtractedFact) => f.evidence.map((e) => e.quote).join(' | ');

describe('spaced identifiers on a label line', () => {
  it('reads the whole identifier-shaped run to the column gap or the end of the line', () => {
    const ref = fact('id_number', ['Policy ref']);
    for (const [text, value] of [
      ['Policy ref   ZX 4410 7721 B', 'ZX 4410 7721 B'],
      ['Policy ref: QK 208 5513 T', 'QK 208 5513 T'],
      ['Policy ref   MW 77 0912 4C   Renewal 01/09/2026', 'MW 77 0912 4C'],
      ['Policy ref:\nTR 9034 1187 22', 'TR 9034 1187 22'],
    ] as const) {
      const f = one(text, ref);
      expect(f, text).toMatchObject({ status: 'resolved', value });
      expect(quote(f)).toBe(value);
    }
  });

  it('still stops at a word that is not part of an identifier', () => {
    expect(one('Register no: HRB 870543 Amtsgericht Köln', fact('id_number', ['Register no'])).value).toBe('HRB 870543');
    expect(one('Claim no   4410 7721 Storm damage', fact('id_number', ['Claim no'])).value).toBe('4410 7721');
  });

  it('keeps an IBAN to its check digits', () => {
    expect(one('IBAN   NL91 ABNA 0417 1643 00', fact('id_number', ['IBAN'])).value).toBe('NL91 ABNA 0417 1643 00');
  });
});

describe('labels with a qualifier', () => {
  it('matches an anchor written with its qualifier, brackets and dots included', () => {
    expect(one('Premium (yearly)   € 1.240,50', fact('money', ['Premium (yearly)']))).toMatchObject({ status: 'resolved', value: '1240.50' });
    expect(one('Amount (incl. VAT)   EUR 99,00', fact('money', ['Amount (incl. VAT)']))).toMatchObject({ status: 'resolved', value: '99.00' });
    expect(one('Contribution [per month]:  PLN 312,40', fact('money', ['Contribution (per month)']))).toMatchObject({ status: 'resolved', value: '312.40' });
    const f = one('Excess (per claim)   £250.00', fact('money', ['Excess (per claim)']));
    expect(f.candidates[0]!.anchor.quote).toBe('Excess (per claim)');
  });

  it('matches nearer forms: the bare label and the qualifier said first', () => {
    expect(one('Premium   € 1.240,50', fact('money', ['Premium (yearly)']))).toMatchObject({ status: 'resolved', value: '1240.50' });
    expect(one('Yearly premium   € 1.240,50', fact('money', ['Premium (yearly)']))).toMatchObject({ status: 'resolved', value: '1240.50' });
    expect(one('Amount incl. VAT:  EUR 99,00', fact('money', ['Amount (incl. VAT)']))).toMatchObject({ status: 'resolved', value: '99.00' });
  });

  it('never reads a label with a different qualifier, and prefers the exact one', () => {
    const anchor = fact('money', ['Premium (yearly)']);
    expect(one('Premium (monthly)   € 103,50', anchor).status).toBe('needs_input');
    expect(one('Premium (monthly)   € 103,50\nPremium (yearly)   € 1.240,50', anchor)).toMatchObject({ status: 'resolved', value: '1240.50' });
  });
});

describe('addresses in more conventions', () => {
  const address = fact('address', ['Address']);
  it.each([
    ['ul. Długa 5/3, 80-827 Gdańsk'],
    ['ul. Zielona 18/4, 31-042 Kraków'],
    ['al. Jerozolimskie 120, 02-305 Warszawa'],
    ['Keizersgracht 12, 1015 CS Amsterdam'],
    ['Oudegracht 211, 3511 NH Utrecht'],
    ['Storgatan 3, 114 51 Stockholm'],
    ['Kungsgatan 42, 411 19 Göteborg'],
    ['C/ Mayor 7, 3º B, 28013 Madrid'],
    ['C/ del Carme 33, 1º 2ª, 08001 Barcelona'],
    ['Via Garibaldi 9, 16124 Genova'],
  ])('one line: %s', (value) => {
    const f = one(`Address: ${value}`, address);
    expect(f).toMatchObject({ status: 'resolved', value });
    expect(f.reason_codes).not.toContain('address_without_postal_code');
  });

  it.each([
    ['ul. Długa 5/3', '80-827 Gdańsk'],
    ['Storgatan 3', '114 51 Stockholm'],
    ['Herengracht 450', '1017 CA Amsterdam'],
    ['C/ Mayor 7, 3º B', '28013 Madrid'],
  ])('two lines: %s / %s', (street, city) => {
    const f = one(`Address:   ${street}\n           ${city}\nPhone:   +34 600 000 000`, address);
    expect(f).toMatchObject({ status: 'resolved', value: `${street}, ${city}` });
    expect(f.evidence.map((e) => e.quote)).toEqual([street, city]);
  });
});

describe('OCR: a letter read as a digit at the start of an identifier', () => {
  const facts = [fact('id_number', ['Permit no'], 'permit'), fact('id_number', ['Ref no'], 'ref')];
  it('takes the letter back when another identifier of the document shows the shape', () => {
    const f = run('Permit no: IE/2231/K\nRef no: 1E/4410/B', facts, 'ocr');
    expect(f.ref).toMatchObject({ status: 'resolved', value: 'IE/4410/B' });
    expect(f.ref!.reason_codes).toContain('ocr_corrected_characters');
    expect(quote(f.ref!)).toBe('1E/4410/B');
    expect(f.permit!.value).toBe('IE/2231/K');
    // The same reading twice, once clean, is one value.
    expect(run('Ref no: 5K-20931\nPermit no: 5K-20931\nRef no: SK-20931', facts, 'ocr').ref!.value).toBe('SK-20931');
  });

  it('leaves digits alone without such evidence, or on text that is not OCR', () => {
    expect(run('Permit no: 4410-2231\nRef no: 1E/4410/B', facts, 'ocr').ref!.value).toBe('1E/4410/B');
    expect(run('Permit no: IE/2231/K\nRef no: 1E/4410/B', facts, 'plain').ref!.value).toBe('1E/4410/B');
    expect(run('Permit no: IE/2231/K\nRef no: 1EX/4410/K', facts, 'ocr').ref!.value).toBe('1EX/4410/K');
  });
});

describe('currencies of the new locales', () => {
  it('reads złoty and koruna amounts, marker before or after', () => {
    const amount = fact('money', ['Kwota']);
    expect(one('Kwota:  1 312,40 zł', amount).value).toBe('1312.40');
    expect(one('Kwota:  PLN 312,40', amount).value).toBe('312.40');
    expect(one('Kwota:  4.250,00 Kč', amount).value).toBe('4250.00');
  });
});
