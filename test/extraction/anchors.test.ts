import { describe, expect, it } from 'vitest';
import { allowedCost, findAnchorsInLine, fold, prepareAnchors, resolveAnchorMatches } from '../../src/domain/extraction/anchors.ts';
import { splitPageLines } from '../../src/domain/extraction/lines.ts';
import { extractFacts } from '../../src/domain/extraction/index.ts';
import { PAY_STUB_FACTS, fact, page } from './helpers.ts';

const anchorsOf = (facts: typeof PAY_STUB_FACTS) => prepareAnchors(facts.flatMap((f) => f.anchors.map((phrase) => ({ factId: f.fact_id, phrase }))));

/** Resolved anchor matches of one line: [fact_id, matched text, distance]. */
function matches(line: string, facts = PAY_STUB_FACTS): Array<[string, string, number]> {
  const [parsed] = splitPageLines(line);
  return resolveAnchorMatches(findAnchorsInLine(parsed!, anchorsOf(facts))).map((m) => [m.factId, line.slice(m.start, m.end), m.distance]);
}

describe('anchor matching', () => {
  it('folds case, spacing, punctuation and accents', () => {
    expect(fold('  PAY—Date :: ').text).toBe('pay date');
    expect(fold('Café  N°').text).toBe('cafe n');
  });

  it.each([
    ['Pay date: 03/14/2026', 'Pay date', 0],
    ['PAY DATE 03/14/2026', 'PAY DATE', 0],
    ['pay date:03/14/2026', 'pay date', 0],
    ['PAY\u00a0DATE\u00a0: 03/14/2026', 'PAY\u00a0DATE', 0],
    ['Pay-date: 03/14/2026', 'Pay-date', 0],
    ['Paydate: 03/14/2026', 'Paydate', 0.5],
    ['Pay dale: 03/14/2026', 'Pay dale', 1],
    ['Pav date: 03/14/2026', 'Pav date', 1],
    ['Gr0ss pay: $1.00', 'Gr0ss pay', 0.5],
    ['Emp1oyee name: Jane', 'Emp1oyee name', 0.5],
    // Two fuzzy readings of one label merge; the label keeps the smaller distance.
    ['Emplovee narne: Jane', 'Emplovee narne', 1],
    ['Ernployee name: Jane', 'Ernployee name', 0.5],
  ])('finds the anchor in %s', (line, text, distance) => {
    const found = matches(line);
    expect(found[0]?.[1]).toBe(text);
    expect(found[0]?.[2]).toBe(distance);
  });

  it('scales the allowed typos with the anchor length', () => {
    expect(allowedCost(4)).toBe(0);
    expect(allowedCost(8)).toBe(2);
    expect(allowedCost(12)).toBe(4);
    // "Date" (4 letters) must be exact: "Data" is another word.
    expect(matches('Data: 03/14/2026', [fact('date', ['Date'])])).toEqual([]);
  });

  it('only matches whole words', () => {
    expect(matches('Repay dates: 1', [fact('date', ['Pay date'])])).toEqual([]);
  });

  it('lets an exact anchor suppress a one-typo reading of it as another fact', () => {
    expect(matches('Employer: Acme Corp')).toEqual([['employer_name', 'Employer', 0]]);
    expect(matches('Employee: Jane Doe')).toEqual([['employee_name', 'Employee', 0]]);
  });

  it('merges overlapping anchors of one fact into one label', () => {
    expect(matches('Total gross pay: $1.00')).toEqual([['gross_pay', 'Total gross pay', 0]]);
    expect(matches('Employee name: Jane')).toEqual([['employee_name', 'Employee name', 0]]);
  });

  it('prefers an exact short anchor to a two-typo long one', () => {
    expect(matches('Employee. James Moore')).toEqual([['employee_name', 'Employee', 0]]);
  });

  it('never lets a label span a column gap', () => {
    expect(matches('TOTAL GROSS\tPay Date')).toEqual([
      ['gross_pay', 'TOTAL GROSS', 0],
      ['pay_date', 'Pay Date', 0],
    ]);
  });

  it('extracts through OCR-style typos end to end', () => {
    const text = 'Emp1oyee narne: Jane Doe\nPaydate: O3/14/2O26\nGross pav: $2,OOO.00';
    const facts = extractFacts({ documentId: 'doc_ocr', pages: [page(text, 'ocr')], facts: PAY_STUB_FACTS });
    const byId = Object.fromEntries(facts.map((f) => [f.fact_id, f]));
    expect(byId.employee_name!.value).toBe('Jane Doe');
    expect(byId.pay_date!.value).toBe('2026-03-14');
    expect(byId.gross_pay!.value).toBe('2000.00');
    expect(byId.gross_pay!.reason_codes).toEqual(expect.arrayContaining(['fuzzy_anchor', 'ocr_text', 'ocr_corrected_characters']));
    expect(byId.gross_pay!.anchor_match_quality).toBeLessThan(byId.employee_name!.anchor_match_quality + 0.2);
  });
});
