import { describe, expect, it } from 'vitest';
import { readDocxText } from '../../src/domain/documents/docx.ts';
import { extractPages } from '../../src/domain/documents/index.ts';
import { extractFacts, type Evidence, type ExtractedFact } from '../../src/domain/extraction/index.ts';
import { FACTS_BY_KIND } from '../../scripts/corpus/case-types.ts';
import { generateCorpus, type CorpusDocument } from '../../scripts/corpus/generate.ts';
import type { DrawnText } from '../../scripts/corpus/render.ts';
import { fakeOcr, textPdf } from './helpers.ts';

/** Folding as the contract defines it: runs of whitespace become one space. */
const fold = (s: string) => s.replace(/\s+/g, ' ').trim();

function allEvidence(facts: readonly ExtractedFact[]): Evidence[] {
  return facts.flatMap((f) => [...f.evidence, ...f.candidates.flatMap((c) => c.evidence)]);
}

interface Box { x0: number; top: number; x1: number; bottom: number; }

/** Every glyph box of every occurrence of `part` in the drawn texts, from pdf-lib's own font metrics. */
function occurrences(drawn: readonly DrawnText[], part: string): Box[][] {
  const found: Box[][] = [];
  for (const d of drawn) {
    for (let at = d.text.indexOf(part); at >= 0; at = d.text.indexOf(part, at + 1)) {
      const ascent = d.font.heightAtSize(d.size, { descender: false });
      const descent = d.font.heightAtSize(d.size) - ascent;
      const glyphs: Box[] = [];
      // A PDF shows glyphs at their advance widths: drawText applies no kerning, while pdf-lib's
      // widthOfTextAtSize of a whole string subtracts kerning pairs, so sum single glyphs.
      let x0 = d.x;
      for (let i = 0; i < at; i++) x0 += d.font.widthOfTextAtSize(d.text[i]!, d.size);
      for (let i = at; i < at + part.length; x0 += d.font.widthOfTextAtSize(d.text[i]!, d.size), i++) {
        if (/\s/.test(d.text[i]!)) continue;
        glyphs.push({ x0, x1: x0 + d.font.widthOfTextAtSize(d.text[i]!, d.size), top: d.baseline - ascent, bottom: d.baseline + descent });
      }
      found.push(glyphs);
    }
  }
  return found;
}

const inside = (g: Box, b: { x: number; y: number; width: number; height: number }, tolerance = 0.02) =>
  g.x0 >= b.x - tolerance && g.x1 <= b.x + b.width + tolerance && g.top >= b.y - tolerance && g.bottom <= b.y + b.height + tolerance;

async function checkDocument(doc: CorpusDocument): Promise<number> {
  const pages = await extractPages({ ocr: fakeOcr() }, { bytes: doc.bytes });
  if (!pages.ok) throw new Error(`${doc.id}: ${pages.reason_code}`);
  const facts = extractFacts({ documentId: doc.id, pages: pages.value.pages, facts: FACTS_BY_KIND[doc.logical.kind] });
  const evidence = allEvidence(facts);
  let original: string | undefined;
  if (doc.format === 'plain') original = new TextDecoder().decode(doc.bytes);
  if (doc.format === 'docx') {
    const raw = await readDocxText(doc.bytes);
    if (!raw.ok) throw new Error(raw.message);
    original = raw.value;
  }
  for (const e of evidence) {
    const where = `${doc.id} ${JSON.stringify(e.quote)} ${JSON.stringify(e.source)}`;
    if (doc.format === 'pdf') {
      expect(e.source.kind, where).toBe('box');
      if (e.source.kind !== 'box') continue;
      expect(e.source.page_index, where).toBe(e.page_index);
      const box = e.source;
      // Every tab-separated part of the quote is drawn somewhere with all its glyphs inside the box.
      for (const part of e.quote.split('\t')) {
        const candidates = occurrences(doc.drawn!, part);
        expect(candidates.length, where).toBeGreaterThan(0);
        expect(candidates.some((glyphs) => glyphs.every((g) => inside(g, box))), where).toBe(true);
      }
    } else {
      expect(e.source.kind, where).toBe('text');
      if (e.source.kind !== 'text') continue;
      expect(fold(original!.slice(e.source.char_start, e.source.char_end)), where).toBe(fold(e.quote));
    }
  }
  return evidence.length;
}

describe('evidence source: every evidence item points into the document as uploaded', () => {
  it('text sources slice to the quote, and PDF boxes enclose every quoted glyph, on every corpus document', async () => {
    let checked = 0;
    let documents = 0;
    for await (const doc of generateCorpus({ seed: 20260314, textDocuments: 60, ocrDocuments: 0 })) {
      checked += await checkDocument(doc);
      documents++;
    }
    expect(documents).toBe(180);
    expect(checked).toBeGreaterThan(600);
  }, 120_000);

  it('maps canonical offsets through folded whitespace, CRLF, tabs and decomposed accents', async () => {
    const raw = 'Employee name:   Jose\u0301 Brand\u00e3o\r\n\r\n\r\nPay date:\t14/03/2026  \r\nGross pay:  \u200b$2,450.00\r\n';
    const pages = await extractPages({ ocr: fakeOcr() }, { bytes: new TextEncoder().encode(raw) });
    if (!pages.ok) throw new Error(pages.message);
    const facts = extractFacts({ documentId: 'd', pages: pages.value.pages, facts: FACTS_BY_KIND.pay_stub });
    const byId = Object.fromEntries(facts.map((f) => [f.fact_id, f]));
    expect(byId.employee_name!.evidence[0]!.quote).toBe('José Brandão');
    for (const e of allEvidence(facts)) {
      if (e.source.kind !== 'text') throw new Error('expected a text source');
      expect(fold(raw.slice(e.source.char_start, e.source.char_end)).normalize('NFC')).toBe(fold(e.quote));
    }
    const gross = byId.gross_pay!.evidence[0]!.source;
    expect(gross.kind === 'text' && raw.slice(gross.char_start, gross.char_end)).toBe('$2,450.00');
  });

  it('gives OCR evidence the box of its words, in points on a scanned PDF page (rendered at 2 px per point)', async () => {
    const engine = fakeOcr({ words: [
      { text: 'Pay', confidence: 90, x0: 10, x1: 40, top: 10, bottom: 30 },
      { text: 'date:', confidence: 90, x0: 46, x1: 90, top: 11, bottom: 31 },
      { text: '03/14/2026', confidence: 90, x0: 300, x1: 400, top: 10, bottom: 30 },
    ] });
    const pages = await extractPages({ ocr: engine }, { bytes: await textPdf([]) });
    if (!pages.ok) throw new Error(pages.message);
    const [payDate] = extractFacts({ documentId: 'd', pages: pages.value.pages, facts: FACTS_BY_KIND.pay_stub.filter((f) => f.fact_id === 'pay_date') });
    expect(payDate!.evidence).toEqual([expect.objectContaining({ quote: '03/14/2026', source: { kind: 'box', page_index: 0, x: 150, y: 5, width: 50, height: 10 } })]);
  });
});
