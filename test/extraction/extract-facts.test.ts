import { describe, expect, it } from 'vitest';
import { extractFacts, factsForDocumentKind, type ExtractedFact } from '../../src/domain/extraction/index.ts';
import { PAY_STUB_FACTS, UTILITY_BILL_FACTS, fact, page } from './helpers.ts';

const run = (text: string, facts = PAY_STUB_FACTS, method: 'plain' | 'ocr' | 'text_layer' = 'plain') =>
  Object.fromEntries(extractFacts({ documentId: 'doc_1', pages: [page(text, method)], facts }).map((f) => [f.fact_id, f])) as Record<string, ExtractedFact>;

describe('extractFacts', () => {
  it('resolves labelled values with evidence on the value, and the spec fields', () => {
    const text = 'ACME PAYROLL\nEmployee name: Jane Q. Doe\nEmployer: Acme Payroll Services, Inc.\nPay date:\t03/14/2026\nGross pay $1,234.56\tEmployee ID 1234';
    const facts = run(text);
    expect(facts.employee_name).toMatchObject({
      fact_id: 'employee_name',
      fact_label: 'Employee name',
      status: 'resolved',
      value: 'Jane Q. Doe',
      source: 'document_extraction',
      anchor_match_quality: 1,
      verification_metadata: [],
    });
    const pay = facts.pay_date!;
    expect(pay.value).toBe('2026-03-14');
    expect(pay.evidence).toHaveLength(1);
    const [evidence] = pay.evidence;
    expect(evidence).toMatchObject({ quote: '03/14/2026', doc_id: 'doc_1', page_index: 0 });
    expect(text.slice(evidence!.location.char_start, evidence!.location.char_end)).toBe('03/14/2026');
    expect(pay.provenance).toEqual([{ kind: 'document_text', document_id: 'doc_1', page_index: 0, quote: '03/14/2026', char_start: evidence!.location.char_start, char_end: evidence!.location.char_end }]);
    expect(pay.candidate_id).toBe(pay.candidates[0]!.candidate_id);
    expect(pay.candidates[0]!.anchor).toMatchObject({ phrase: 'Pay date', quote: 'Pay date' });
    expect(facts.gross_pay!.value).toBe('1234.56');
    expect(facts.employer_name!.value).toBe('Acme Payroll Services, Inc.');
  });

  it('marks two different values that score alike as conflicting_candidates', () => {
    const facts = run('Pay date: 03/14/2026\nCheck date: 03/21/2026\nEmployee: Jane Doe\nGross pay: $10.00');
    const pay = facts.pay_date!;
    expect(pay.status).toBe('needs_input');
    expect(pay.reason_codes).toEqual(['conflicting_candidates']);
    expect(pay.value).toBeNull();
    expect(pay.candidate_id).toBeNull();
    expect(pay.evidence.map((e) => e.quote).sort()).toEqual(['03/14/2026', '03/21/2026']);
    expect(pay.candidates.map((c) => c.value).sort()).toEqual(['2026-03-14', '2026-03-21']);
  });

  it('does not call the same value written twice a conflict', () => {
    const facts = run('Employee: JANE DOE\nEmployee name: Jane Doe');
    // Equal scores: the first in reading order is the value; both spellings stay candidates.
    expect(facts.employee_name).toMatchObject({ status: 'resolved', value: 'JANE DOE' });
    expect(facts.employee_name!.candidates.map((c) => c.value)).toEqual(['JANE DOE', 'Jane Doe']);
  });

  it('prefers the plain label over a qualified look-alike, and never resolves from the look-alike alone', () => {
    const both = run('Previous pay date: 02/28/2026\nPay date: 03/14/2026\nYTD gross pay: $24,000.00\nGross pay YTD: $24,000.00\nGross pay: $2,000.00');
    expect(both.pay_date!.value).toBe('2026-03-14');
    expect(both.gross_pay!.value).toBe('2000.00');
    const alone = run('Previous pay date: 02/28/2026');
    expect(alone.pay_date).toMatchObject({ status: 'needs_input', reason_codes: ['low_confidence'], value: null });
  });

  it('skips labels that merely start with an anchor', () => {
    const facts = run('Employee ID: 48213\nCompany code: AB12\nEmployer ID: 12-3456789');
    expect(facts.employee_name!.reason_codes).toEqual(['not_found']);
    expect(facts.employer_name!.reason_codes).toEqual(['not_found']);
  });

  it('reports not_found and unparseable_value', () => {
    const facts = run('Pay date: to be confirmed\nNothing else here');
    expect(facts.employee_name).toMatchObject({ status: 'needs_input', reason_codes: ['not_found'], anchor_match_quality: 0, evidence: [], provenance: [] });
    expect(facts.pay_date).toMatchObject({ status: 'failed', reason_codes: ['unparseable_value'], value: null });
    expect(facts.pay_date!.evidence[0]!.quote).toBe('to be confirmed');
  });

  it('reads values on the next line, in the next column and under a table header', () => {
    const nextLine = run('Employee name:\n\nJane Doe\nPay date\t03/14/2026');
    expect(nextLine.employee_name).toMatchObject({ value: 'Jane Doe', reason_codes: ['value_on_next_line'] });
    expect(nextLine.employee_name!.candidates[0]!.placement).toBe('next_line');
    expect(nextLine.pay_date!.candidates[0]!.placement).toBe('next_column');
    const table = run('Employee name\tPay date\tGross pay\nJane Doe\t14-Mar-2026\tUSD 2,000.5');
    expect(table.employee_name!.value).toBe('Jane Doe');
    expect(table.pay_date!.value).toBe('2026-03-14');
    expect(table.gross_pay!.value).toBe('2000.50');
    expect(table.gross_pay!.candidates[0]!.placement).toBe('table_column');
  });

  it('stops a value at the next label on a single-spaced line', () => {
    const facts = run('Employee: Jane Doe Pay date: 03/14/2026 Gross pay: $5.00');
    expect(facts.employee_name!.value).toBe('Jane Doe');
    expect(facts.pay_date!.value).toBe('2026-03-14');
    expect(facts.gross_pay!.value).toBe('5.00');
  });

  it('reads a multi-line address with one evidence span per line', () => {
    const text = 'Account holder:\nMary O\'Brien\nService address:\t12 Oak Street\tStatement date: 02/03/2026\nApt 4B\tDue date: 02/28/2026\nSpringfield, IL 62704\nAccount number: 123-456';
    const facts = run(text, UTILITY_BILL_FACTS);
    const address = facts.service_address!;
    expect(address.value).toBe('12 Oak Street, Apt 4B, Springfield, IL 62704');
    expect(address.evidence.map((e) => e.quote)).toEqual(['12 Oak Street', 'Apt 4B', 'Springfield, IL 62704']);
    expect(facts.holder_name!.value).toBe("Mary O'Brien");
    // 02/28/2026 in the same document settles the order of 02/03/2026: month first.
    expect(facts.statement_date).toMatchObject({ value: '2026-02-03', reason_codes: ['date_order_from_document'] });
  });

  it('reads the date order from a hint next to the label', () => {
    const facts = run('Statement date (DD/MM/YYYY): 02/03/2026', UTILITY_BILL_FACTS);
    expect(facts.statement_date!.value).toBe('2026-03-02');
  });

  it('uses the configured default order for a document with no signal, and flags it', () => {
    const text = 'Statement date: 02/03/2026';
    expect(run(text, UTILITY_BILL_FACTS).statement_date).toMatchObject({ value: '2026-02-03', reason_codes: ['ambiguous_date_order'] });
    const dmy = extractFacts({ documentId: 'd', pages: [page(text)], facts: UTILITY_BILL_FACTS, dateOrder: 'dmy' });
    expect(dmy.find((f) => f.fact_id === 'statement_date')!.value).toBe('2026-03-02');
  });

  it('scores OCR pages, fuzzy anchors and next-line values lower than clean ones', () => {
    const clean = run('Pay date: 03/14/2026').pay_date!.anchor_match_quality;
    const ocr = run('Pay date: 03/14/2026', PAY_STUB_FACTS, 'ocr').pay_date!.anchor_match_quality;
    const fuzzy = run('Pav date: 03/14/2026').pay_date!.anchor_match_quality;
    const below = run('Pay date:\n03/14/2026').pay_date!.anchor_match_quality;
    expect(clean).toBe(1);
    for (const lower of [ocr, fuzzy, below]) {
      expect(lower).toBeLessThan(clean);
      expect(lower).toBeGreaterThan(0.6);
    }
  });

  it('skips the stray marks OCR reads from specks between a label and its value, on OCR pages only', () => {
    const text = 'Employee -. OMAR AL FALASI\nCompany ‘code: PR54\nEmployer: Silverline Hotels\nGross pay: ‘USD 1,250.00\nPay date:\t. 03/14/2026';
    const facts = run(text, PAY_STUB_FACTS, 'ocr');
    expect(facts.employee_name).toMatchObject({ status: 'resolved', value: 'OMAR AL FALASI' });
    expect(facts.employer_name).toMatchObject({ status: 'resolved', value: 'Silverline Hotels' });
    expect(facts.gross_pay!.value).toBe('1250.00');
    expect(facts.pay_date!.value).toBe('2026-03-14');
    expect(run('Gross pay: -12.50', PAY_STUB_FACTS, 'ocr').gross_pay!.evidence[0]!.quote).toBe('-12.50');
    expect(run('Gross pay? $1,250.00', PAY_STUB_FACTS, 'ocr').gross_pay).toMatchObject({ status: 'resolved', value: '1250.00' });
    expect(run(text, PAY_STUB_FACTS, 'plain').employee_name!.status).not.toBe('resolved');
    // A next cell of nothing but marks is read as it is (and fails), never as an empty span.
    expect(run('Employee name:\t. -', PAY_STUB_FACTS, 'ocr').employee_name).toMatchObject({ status: 'failed', evidence: [{ quote: '. -' }] });
  });

  it('reads an OCR date that a wide glyph gap split across two cells, on OCR pages only', () => {
    const ocr = run('Statement date:\t2\tnovember 2025', UTILITY_BILL_FACTS, 'ocr').statement_date!;
    expect(ocr).toMatchObject({ status: 'resolved', value: '2025-11-02' });
    expect(ocr.evidence[0]!.quote).toBe('2\tnovember 2025');
    expect(run('Statement date:\t2\tnovember 2025', UTILITY_BILL_FACTS, 'plain').statement_date!.status).not.toBe('resolved');
  });

  it('reads past what OCR does around labels: a speck letter before a column, a joined label, a marked currency, a split date', () => {
    const facts = run('EMPLOYEE H\tROBERT PRICE\nPAY DATE2025- i 1-04\nGross pay:\nRs: 8,013.99', PAY_STUB_FACTS, 'ocr');
    expect(facts.employee_name).toMatchObject({ status: 'resolved', value: 'ROBERT PRICE', evidence: [{ quote: 'ROBERT PRICE' }] });
    // The label ran into its value, and a "1" of the month was read as a lone "i".
    expect(facts.pay_date).toMatchObject({ status: 'resolved', value: '2025-11-04', evidence: [{ quote: '2025- i 1-04' }] });
    expect(facts.pay_date!.reason_codes).toContain('ocr_corrected_characters');
    // "Rs:" under its label is an amount whose full stop was read as a colon, not another label.
    expect(facts.gross_pay).toMatchObject({ status: 'resolved', value: '8013.99', evidence: [{ quote: 'Rs: 8,013.99' }] });
    // A lone letter is a value where it is the whole cell, and on text pages it is never a speck.
    expect(run('EMPLOYEE H\tROBERT PRICE', PAY_STUB_FACTS, 'plain').employee_name!.status).not.toBe('resolved');
  });

  it('reads an amount whose currency stands in a column of its own', () => {
    for (const method of ['plain', 'ocr'] as const) {
      const gross = run('GROSS EARNINGS: Rs\t7,297.03', PAY_STUB_FACTS, method).gross_pay!;
      expect(gross).toMatchObject({ status: 'resolved', value: '7297.03', evidence: [{ quote: 'Rs\t7,297.03' }] });
    }
    // OCR's space after the decimal mark is read across the column too.
    expect(run('GROSS EARNINGS: Rs\t7,297. 03', PAY_STUB_FACTS, 'ocr').gross_pay).toMatchObject({ status: 'resolved', value: '7297.03' });
  });

  it('is deterministic: same input, same output and ids', () => {
    const text = 'Employee: Jane Doe\nPay date: 03/14/2026\nGross pay: $5.00\nCheck date: 03/21/2026';
    const first = extractFacts({ documentId: 'doc_9', pages: [page(text)], facts: PAY_STUB_FACTS });
    const second = extractFacts({ documentId: 'doc_9', pages: [page(text)], facts: PAY_STUB_FACTS });
    expect(second).toEqual(first);
    const other = extractFacts({ documentId: 'doc_10', pages: [page(text)], facts: PAY_STUB_FACTS });
    expect(other[0]!.candidate_id).not.toBe(first[0]!.candidate_id);
    expect(first[0]!.candidate_id).toMatch(/^cand_[0-9a-f]{24}$/);
    expect(first[0]!.evidence[0]!.evidence_id).toMatch(/^ev_[0-9a-f]{24}$/);
  });

  it('searches every page and reports the page of the evidence', () => {
    const facts = extractFacts({
      documentId: 'doc_2',
      pages: [page('Page one has nothing', 'text_layer', 0), page('Gross pay: $3,000.00', 'text_layer', 1)],
      facts: PAY_STUB_FACTS,
    });
    const gross = facts.find((f) => f.fact_id === 'gross_pay')!;
    expect(gross.value).toBe('3000.00');
    expect(gross.evidence[0]!.page_index).toBe(1);
  });

  it('handles every fact type and filters facts by document kind', () => {
    const facts = [
      fact('number', ['Hours worked'], 'hours'),
      fact('id_number', ['Account number'], 'account'),
      fact('string', ['Plan'], 'plan'),
    ];
    const out = Object.fromEntries(extractFacts({ documentId: 'd', pages: [page('Hours worked: 80.00\nAccount number: ACC-0012-3345\nPlan: Residential R1')], facts }).map((f) => [f.fact_id, f.value]));
    expect(out).toEqual({ hours: '80.00', account: 'ACC-0012-3345', plan: 'Residential R1' });
    expect(factsForDocumentKind([...PAY_STUB_FACTS, ...UTILITY_BILL_FACTS], 'utility_bill').map((f) => f.fact_id)).toEqual(['holder_name', 'service_address', 'statement_date']);
  });

  it('survives empty pages and facts without usable anchors', () => {
    expect(extractFacts({ documentId: 'd', pages: [page('')], facts: [fact('name', ['???'])] })).toMatchObject([{ status: 'needs_input', reason_codes: ['not_found'] }]);
    expect(extractFacts({ documentId: 'd', pages: [], facts: PAY_STUB_FACTS })).toHaveLength(4);
  });
});
