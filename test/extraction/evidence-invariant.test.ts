import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalizeText } from '../../src/domain/documents/canonical-text.ts';
import {
  EvidenceInvariantError,
  assertFactEvidence,
  createEvidence,
  extractFacts,
  indexPages,
  type ExtractedFact,
  type ExtractionPage,
} from '../../src/domain/extraction/index.ts';
import { FACTS_BY_KIND } from '../../scripts/corpus/case-types.ts';
import { generateDocument } from '../../scripts/corpus/documents.ts';
import { createRng } from '../../scripts/corpus/prng.ts';
import { renderPlain } from '../../scripts/corpus/render.ts';
import { PAY_STUB_FACTS, UTILITY_BILL_FACTS, page } from './helpers.ts';

/** Checks the invariant independently of the code under test. */
function expectQuotesExact(facts: readonly ExtractedFact[], pages: readonly ExtractionPage[]) {
  const text = (index: number) => pages.find((p) => p.page_index === index)!.text;
  for (const f of facts) {
    for (const e of [...f.evidence, ...f.candidates.flatMap((c) => c.evidence)]) {
      expect(e.quote).toBe(text(e.page_index).slice(e.location.char_start, e.location.char_end));
      expect(e.quote.length).toBeGreaterThan(0);
    }
    for (const p of f.provenance) expect(p.quote).toBe(text(p.page_index).slice(p.char_start, p.char_end));
    for (const c of f.candidates) expect(c.anchor.quote).toBe(text(c.page_index).slice(c.anchor.char_start, c.anchor.char_end));
  }
}

describe('the evidence invariant: quote === pages[page_index].text.slice(char_start, char_end)', () => {
  it('holds for every generated document (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.constantFrom('pay_stub', 'utility_bill'), (seed, kind) => {
        const rng = createRng(seed);
        const doc = generateDocument(rng, kind as 'pay_stub' | 'utility_bill', 0);
        const text = canonicalizeText(new TextDecoder().decode(renderPlain(doc, rng)));
        const pages = [page(text)];
        const facts = extractFacts({ documentId: `doc_${seed}`, pages, facts: FACTS_BY_KIND[doc.kind] });
        expectQuotesExact(facts, pages);
      }),
      { numRuns: 200 },
    );
  });

  it('holds for arbitrary text built from labels, values, noise and odd whitespace (property)', () => {
    const piece = fc.oneof(
      fc.constantFrom(...[...PAY_STUB_FACTS, ...UTILITY_BILL_FACTS].flatMap((f) => f.anchors)),
      fc.constantFrom(':', ' ', '\t', '\n', '\n\n', '  ', '$1,234.56', '03/14/2026', 'March 3, 2026', 'Jane Doe', '12 Oak St', 'Springfield, IL 62704', '(DD/MM/YYYY)', 'é', '\u00a0', '👍', 'Previous '),
      fc.string({ maxLength: 8 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.array(piece, { maxLength: 20 }), fc.constantFrom('plain', 'ocr', 'text_layer'), (a, b, method) => {
        const pages = [page(a.join(''), method as 'plain', 0), page(b.join(''), method as 'plain', 3)];
        const facts = extractFacts({ documentId: 'doc_fuzz', pages, facts: [...PAY_STUB_FACTS, ...UTILITY_BILL_FACTS] });
        expectQuotesExact(facts, pages);
      }),
      { numRuns: 300 },
    );
  });

  it('is enforced in code: evidence cannot be made for a span outside the page', () => {
    const pages = indexPages([page('Pay date: 03/14/2026')]);
    const span = { documentId: 'd', factId: 'f', pageIndex: 0 };
    expect(createEvidence(pages, { ...span, charStart: 10, charEnd: 20 }).quote).toBe('03/14/2026');
    for (const [charStart, charEnd, pageIndex] of [[10, 99, 0], [-1, 3, 0], [5, 5, 0], [1.5, 3, 0], [0, 3, 7]] as const) {
      expect(() => createEvidence(pages, { ...span, pageIndex, charStart, charEnd })).toThrow(EvidenceInvariantError);
    }
    expect(() => indexPages([page('a', 'plain', 0), page('b', 'plain', 0)])).toThrow(EvidenceInvariantError);
  });

  it('is enforced in code: a fact whose quote no longer matches its page is rejected', () => {
    const pages = [page('Employee: Jane Doe\nPay date: 03/14/2026')];
    const [fact] = extractFacts({ documentId: 'd', pages, facts: PAY_STUB_FACTS });
    expect(() => assertFactEvidence(fact!, pages)).not.toThrow();
    const tampered = { ...fact!, evidence: [{ ...fact!.evidence[0]!, quote: 'John Roe' }] };
    expect(() => assertFactEvidence(tampered, pages)).toThrow(EvidenceInvariantError);
    expect(() => assertFactEvidence(fact!, [page('Employee: John Roe\nPay date: 03/14/2026')])).toThrow(EvidenceInvariantError);
  });
});
