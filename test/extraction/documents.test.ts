import { createCanvas } from '@napi-rs/canvas';
import { AlignmentType, Document, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx';
import { describe, expect, it } from 'vitest';
import { DOCX_MIME_TYPE, MAX_DOCUMENT_BYTES, extractPages, sniffDocumentType } from '../../src/domain/documents/index.ts';
import type { PageText } from '../../src/domain/documents/types.ts';
import { canonicalizeText, layoutFragments } from '../../src/domain/documents/canonical-text.ts';
import { htmlToText } from '../../src/domain/documents/docx.ts';
import { encryptedPdf, fakeOcr, pngHeader, storedZip, textPdf, utf8 } from './helpers.ts';
import { docxLargeTable, docxZipBomb, pdfWithHugeImage } from '../documents/bomb-fixtures.ts';

const CONTENT_TYPES = '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
  + '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';

async function png(width = 40, height = 20, format: 'png' | 'jpeg' = 'png'): Promise<Uint8Array> {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#fff';
  context.fillRect(0, 0, width, height);
  return new Uint8Array(format === 'png' ? await canvas.encode('png') : await canvas.encode('jpeg', 80));
}

async function docx(): Promise<Uint8Array> {
  const table = new Table({
    rows: [
      new TableRow({ children: ['Employee name', 'Pay date'].map((t) => new TableCell({ children: [new Paragraph(t)] })) }),
      new TableRow({ children: ['Jane Doe', '03/14/2026'].map((t) => new TableCell({ children: [new Paragraph(t)] })) }),
      new TableRow({
        children: [
          new TableCell({ children: [new Paragraph('Service address')] }),
          new TableCell({ children: [new Paragraph('12 Oak Street'), new Paragraph('Springfield, IL 62704')] }),
        ],
      }),
    ],
  });
  const document = new Document({
    sections: [{ children: [new Paragraph({ alignment: AlignmentType.LEFT, children: [new TextRun({ text: 'PAY STUB', bold: true })] }), table, new Paragraph('Gross pay:\t$1,234.56')] }],
  });
  return new Uint8Array(await Packer.toBuffer(document));
}

describe('sniffDocumentType', () => {
  it('decides every accepted type from the bytes alone', async () => {
    expect(await sniffDocumentType(await textPdf([{ text: 'Hello', y: 700 }]))).toEqual({ ok: true, value: 'application/pdf' });
    expect(await sniffDocumentType(await png())).toEqual({ ok: true, value: 'image/png' });
    expect(await sniffDocumentType(await png(40, 20, 'jpeg'))).toEqual({ ok: true, value: 'image/jpeg' });
    expect(await sniffDocumentType(await docx())).toEqual({ ok: true, value: DOCX_MIME_TYPE });
    expect(await sniffDocumentType(utf8('Pay date: 03/14/2026\r\nNaïve café ✓\n'))).toEqual({ ok: true, value: 'text/plain' });
    expect(await sniffDocumentType(utf8('\uFEFFwith a BOM'))).toEqual({ ok: true, value: 'text/plain' });
  });

  it('refuses what is none of them', async () => {
    const refused = async (bytes: Uint8Array) => {
      const result = await sniffDocumentType(bytes);
      return result.ok ? 'accepted' : result.reason_code;
    };
    expect(await refused(storedZip({ 'hello.txt': 'hi' }))).toBe('unsupported_type');
    expect(await refused(new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0, 0, 0]))).toBe('unsupported_type'); // GIF
    expect(await refused(new Uint8Array([0xff, 0xfe, 0x48, 0x00, 0x69, 0x00]))).toBe('unsupported_type'); // UTF-16
    expect(await refused(new Uint8Array([0x48, 0x69, 0x00, 0x21]))).toBe('unsupported_type'); // NUL byte
    expect(await refused(new Uint8Array([0xc3, 0x28, 0x41]))).toBe('unsupported_type'); // invalid UTF-8
    expect(await refused(new Uint8Array(0))).toBe('empty_document');
    expect(await refused(new Uint8Array(MAX_DOCUMENT_BYTES + 1))).toBe('too_large');
  });

  it('is not fooled by a PDF renamed .txt: a declared type that the bytes contradict is refused', async () => {
    const pdf = await textPdf([{ text: 'Pay date: 03/14/2026', y: 700 }]);
    expect(await sniffDocumentType(pdf)).toEqual({ ok: true, value: 'application/pdf' });
    const result = await extractPages({ ocr: fakeOcr() }, { bytes: pdf, mimeType: 'text/plain' });
    expect(result).toMatchObject({ ok: false, reason_code: 'unsupported_type' });
  });
});

describe('extractPages', () => {
  const ocr = fakeOcr();
  const reason = async (bytes: Uint8Array, limits = {}) => {
    const result = await extractPages({ ocr, limits }, { bytes });
    return result.ok ? 'ok' : result.reason_code;
  };

  it('reads a text PDF page by page, laying items out into lines and columns', async () => {
    const pdf = await textPdf([
      { text: 'Employee name: Jane Doe', y: 740 },
      { text: 'Pay date:', y: 720 },
      { text: '03/14/2026', x: 200, y: 720 },
      { text: 'Gross', y: 700 },
      { text: 'pay', x: 82, y: 700 },
    ], 2);
    const result = await extractPages({ ocr }, { bytes: pdf });
    expect(result.ok && result.value.mime_type).toBe('application/pdf');
    expect(result.ok && withoutOrigin(result.value.pages)).toEqual(
      [0, 1].map((page_index) => ({ page_index, method: 'text_layer', text: 'Employee name: Jane Doe\nPay date:\t03/14/2026\nGross pay', size: { width: 595, height: 842, unit: 'pt' } })),
    );
  });

  it('sends a PDF page without a text layer through OCR', async () => {
    const scan = await textPdf([]);
    const engine = fakeOcr({ words: [
      { text: 'Pay', confidence: 90, x0: 10, x1: 40, top: 10, bottom: 30 },
      { text: 'date:', confidence: 90, x0: 46, x1: 90, top: 11, bottom: 31 },
      { text: '03/14/2026', confidence: 90, x0: 300, x1: 400, top: 10, bottom: 30 },
    ] });
    const result = await extractPages({ ocr: engine }, { bytes: scan });
    expect(engine.calls).toBe(1);
    expect(result.ok && withoutOrigin(result.value.pages)).toEqual([{ page_index: 0, method: 'ocr', text: 'Pay date:\t03/14/2026', ocr_confidence: 90, size: { width: 595, height: 842, unit: 'pt' } }]);
  });

  it('reads DOCX tables as tab-separated rows, one page', async () => {
    const result = await extractPages({ ocr }, { bytes: await docx() });
    expect(result.ok && withoutOrigin(result.value.pages)).toEqual([{
      page_index: 0,
      method: 'docx',
      text: 'PAY STUB\nEmployee name\tPay date\nJane Doe\t03/14/2026\nService address\t12 Oak Street\nSpringfield, IL 62704\nGross pay:\t$1,234.56',
    }]);
  });

  it('normalises plain text: CRLF, BOM, column gaps, blank runs', async () => {
    const result = await extractPages({ ocr }, { bytes: utf8('\uFEFF  Pay date:     03/14/2026  \r\n\r\n\r\n\r\nGross\u00a0pay:\t$1.00\r\n\r\n') });
    expect(result.ok && withoutOrigin(result.value.pages)).toEqual([{ page_index: 0, method: 'plain', text: 'Pay date:\t03/14/2026\n\nGross pay:\t$1.00' }]);
  });

  it('gives a reason code, never an exception, for bad documents', async () => {
    const pdf = await textPdf([{ text: 'Pay date: 03/14/2026', y: 700 }]);
    expect(await reason(utf8('%PDF-1.7\n garbage garbage\n%%EOF'))).toBe('corrupt_document');
    expect(await reason(encryptedPdf())).toBe('encrypted_pdf');
    expect(['corrupt_document', 'ok', 'no_text_found']).toContain(await reason(pdf.slice(0, Math.floor(pdf.length / 2))));
    expect(await reason(await textPdf([{ text: 'x', y: 700 }], 3), { maxPages: 2 })).toBe('too_many_pages');
    const word = await docx();
    // Truncated: no ZIP directory. Whether the sniffer still sees a DOCX depends on which parts
    // survive (the docx writer stamps the time, so the bytes vary); either way it is a value.
    expect(['corrupt_document', 'unsupported_type']).toContain(await reason(word.slice(0, word.length - 200)));
    expect(await reason(storedZip({ '[Content_Types].xml': CONTENT_TYPES, 'word/document.xml': '<not really xml' }))).toBe('corrupt_document');
    expect(await reason(storedZip({ '[Content_Types].xml': CONTENT_TYPES, 'word/document.xml': '<w:document/>' }, { 'word/document.xml': 0x7fffffff }))).toBe('too_large');
    expect(await reason(pngHeader(100_000, 100_000))).toBe('too_large');
    expect(await reason(pngHeader(0, 0))).toBe('corrupt_document');
    expect(await reason(await png())).toBe('no_text_found');
    expect(await reason(utf8(' \n\t\n'))).toBe('no_text_found');
    expect(await reason(utf8('Pay date: 03/14/2026\n'.repeat(100)), { maxTextChars: 1000 })).toBe('too_large');
  });

  it('stops at the deadline and abandons the OCR it was waiting for', async () => {
    const engine = fakeOcr('hang');
    const started = Date.now();
    const result = await extractPages({ ocr: engine, limits: { timeoutMs: 200 } }, { bytes: await png() });
    expect(result).toMatchObject({ ok: false, reason_code: 'extraction_timeout' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('honours a caller-cancelled signal', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await extractPages({ ocr: fakeOcr('hang') }, { bytes: await png(), signal: controller.signal });
    expect(result).toMatchObject({ ok: false, reason_code: 'extraction_timeout' });
  });
});

describe('canonical text', () => {
  it('applies one set of rules to text sources', () => {
    expect(canonicalizeText('a  b\tc d\u200b\r\n\n\n\ne\u0007')).toBe('a\tb\tc d\n\ne');
    expect(canonicalizeText('e\u0301')).toBe('é');
  });

  it('lays positioned fragments out deterministically whatever their order', () => {
    const fragments = [
      { text: 'Pay', x0: 0, x1: 30, top: 0, bottom: 10 },
      { text: 'date:', x0: 33, x1: 60, top: 1, bottom: 11 },
      { text: '03/14/2026', x0: 200, x1: 260, top: 0, bottom: 10 },
      { text: 'Gro', x0: 0, x1: 20, top: 14, bottom: 24 },
      { text: 'ss', x0: 20.5, x1: 32, top: 14, bottom: 24 },
      { text: 'Next', x0: 0, x1: 30, top: 60, bottom: 70 },
    ];
    const expected = 'Pay date:\t03/14/2026\nGross\n\nNext';
    expect(layoutFragments(fragments)).toBe(expected);
    expect(layoutFragments([...fragments].reverse())).toBe(expected);
  });

  it('flattens mammoth HTML without losing rows', () => {
    expect(htmlToText('<p>A &amp; B</p><table><tr><td><p>x</p></td><td></td><td><p>y</p><p>z</p></td></tr><tr><td></td><td><p>w</p></td></tr></table><p>end</p>'))
      .toBe('A & B\nx\t\ty\nz\n\tw\nend\n');
  });
});

describe('hostile documents', () => {
  it('refuses a DOCX whose part inflates past its forged size, without inflating the rest', async () => {
    const bomb = docxZipBomb(8);
    expect(bomb.byteLength).toBeLessThan(MAX_DOCUMENT_BYTES);
    expect(await sniffDocumentType(bomb)).toEqual({ ok: true, value: DOCX_MIME_TYPE });
    const before = process.memoryUsage().rss;
    const result = await extractPages({ ocr: fakeOcr() }, { bytes: bomb });
    expect(result).toMatchObject({ ok: false, reason_code: 'too_large', message: expect.stringMatching(/inflates past its declared 4096 bytes/) });
    // 8 GB would not fit this process; the refusal came from the first 4 KB + 1 byte.
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024);
  });

  it('reads a hand-written DOCX table, and refuses one with more cells than the limit', async () => {
    const small = await extractPages({ ocr: fakeOcr() }, { bytes: docxLargeTable(3, 2) });
    expect(small).toMatchObject({ ok: true, value: { pages: [{ text: 'Ledger export\nr0c0\tr0c1\nr1c0\tr1c1\nr2c0\tr2c1', method: 'docx' }] } });
    const huge = await extractPages({ ocr: fakeOcr() }, { bytes: docxLargeTable(15_000, 10) });
    expect(huge).toMatchObject({ ok: false, reason_code: 'too_large', message: expect.stringMatching(/table cells/) });
  });

  it('leaves a 40,000 × 40,000 PDF image out instead of decoding it', async () => {
    const engine = fakeOcr();
    const result = await extractPages({ ocr: engine }, { bytes: pdfWithHugeImage(40_000) });
    // The page rendered without its image, so OCR saw a blank page.
    expect(result).toMatchObject({ ok: false, reason_code: 'no_text_found' });
    expect(engine.calls).toBe(1);
  });

  it('builds the text of a 150,000-cell table the same way as a small one', () => {
    const rows = 15_000;
    const html = `<table>${Array.from({ length: rows }, (_, r) => `<tr>${Array.from({ length: 10 }, (_, c) => `<td><p>r${r}c${c}</p></td>`).join('')}</tr>`).join('')}</table>`;
    const text = htmlToText(html);
    expect(text.split('\n')).toHaveLength(rows + 1);
    expect(text.split('\n')[rows - 1]).toBe(Array.from({ length: 10 }, (_, c) => `r${rows - 1}c${c}`).join('\t'));
    const fragments = Array.from({ length: 150_000 }, (_, i) => ({ text: `w${i} `, x0: i * 10, x1: i * 10 + 8, top: 0, bottom: 10 }));
    expect(layoutFragments(fragments).length).toBe(fragments.reduce((n, f) => n + f.text.length, 0) - 1);
  });
});

/** Pages without their character origin (checked by evidence-source.test.ts), for exact comparison. */
function withoutOrigin(pages: readonly PageText[]) {
  return pages.map(({ origin: _origin, ...rest }) => rest);
}
