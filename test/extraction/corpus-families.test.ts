import { describe, expect, it } from 'vitest';
import { extractPages, sniffDocumentType } from '../../src/domain/documents/index.ts';
import { extractFacts } from '../../src/domain/extraction/index.ts';
import { ALL_DOCUMENT_KINDS, FACTS_BY_KIND } from '../../scripts/corpus/case-types.ts';
import { generateCorpus } from '../../scripts/corpus/generate.ts';
import { fakeOcr } from './helpers.ts';

/**
 * Issue 28 §1: the evaluation corpus has nine families and fourteen locales, and every family —
 * each one unseen by the rules in turn — reads at the text-format goal. A small plain-text sample
 * of what `npm run eval:extraction -- --lofo` measures at scale.
 */
describe('the nine-family corpus', () => {
  it('covers ≥ 9 families and ≥ 12 locales, and each family reads at F1 ≥ 0.97 as plain text', async () => {
    const locales = new Set<string>();
    const counts = new Map<string, { tp: number; fp: number; fn: number }>();
    for await (const doc of generateCorpus({ seed: 20260314, textDocuments: 270, ocrDocuments: 0, families: ALL_DOCUMENT_KINDS })) {
      if (doc.format !== 'plain') continue;
      locales.add(doc.logical.locale);
      const sniffed = await sniffDocumentType(doc.bytes);
      if (!sniffed.ok) throw new Error(sniffed.reason_code);
      const pages = await extractPages({ ocr: fakeOcr() }, { bytes: doc.bytes, mimeType: sniffed.value });
      if (!pages.ok) throw new Error(pages.reason_code);
      const facts = FACTS_BY_KIND[doc.logical.kind];
      const extracted = extractFacts({ documentId: doc.id, pages: pages.value.pages, facts });
      const c = counts.get(doc.logical.kind) ?? { tp: 0, fp: 0, fn: 0 };
      for (const definition of facts) {
        const expected = doc.logical.truth[definition.fact_id] ?? null;
        const fact = extracted.find((f) => f.fact_id === definition.fact_id)!;
        const got = fact.status === 'resolved' ? fact.value : null;
        const key = (v: string) => (['date', 'money', 'number'].includes(definition.type) ? v : v.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ''));
        if (got !== null && expected !== null && key(got) === key(expected)) c.tp++;
        else {
          if (got !== null) c.fp++;
          if (expected !== null) c.fn++;
        }
      }
      counts.set(doc.logical.kind, c);
    }
    expect(counts.size).toBeGreaterThanOrEqual(9);
    expect(locales.size).toBeGreaterThanOrEqual(12);
    for (const [family, c] of counts) {
      const f1 = (2 * c.tp) / (2 * c.tp + c.fp + c.fn);
      expect(f1, family).toBeGreaterThanOrEqual(0.97);
    }
  });
});
