import { createCanvas } from '@napi-rs/canvas';
import { afterAll, describe, expect, it } from 'vitest';
import { chooseOcrLanguages, createTesseractOcr, extractPages } from '../../src/domain/documents/index.ts';
import { readingIn } from '../../src/domain/documents/ocr/engine.ts';

/**
 * Issue 28 §2, OCR letters: Polish "ł", "ś", "ż" are in no other installed model, so a Polish case's
 * pages are read in Polish (the pl pack's model, @tesseract.js-data/pol). A scan drawn here, of
 * our own words, in a font that has the letters.
 */
async function polishLetterScan(): Promise<Uint8Array> {
  const canvas = createCanvas(1400, 420);
  const context = canvas.getContext('2d');
  context.fillStyle = 'rgb(246,246,242)';
  context.fillRect(0, 0, 1400, 420);
  context.fillStyle = '#161616';
  context.font = '34px "DejaVu Sans"';
  const lines = ['Najemca: Wiesław Żółkiewski', 'Adres: ul. Długa 5/3, 80-827 Gdańsk', 'Czynsz miesięczny: 2 450,00 zł'];
  lines.forEach((line, i) => context.fillText(line, 60, 90 + i * 110));
  return new Uint8Array(await canvas.encode('png'));
}

describe('a Polish page with the real engine', () => {
  const ocr = createTesseractOcr();
  afterAll(() => ocr.close());

  it('reads ł, ś and ż when the case is Polish, which the fallback languages cannot', async () => {
    const image = await polishLetterScan();
    const read = async (sessionLocale: string | null) => {
      const pages = await extractPages({ ocr: readingIn(ocr, chooseOcrLanguages({ sessionLocale, caseTypeLocales: ['en'] })) }, { bytes: image, mimeType: 'image/png' });
      if (!pages.ok) throw new Error(pages.reason_code);
      return pages.value.pages.map((p) => p.text).join('\n');
    };
    expect(chooseOcrLanguages({ sessionLocale: 'pl', caseTypeLocales: ['en'] }).page).toEqual(['pol', 'eng']);
    const polish = await read('pl');
    for (const word of ['Wiesław', 'Żółkiewski', 'Długa', 'Gdańsk', 'zł']) expect(polish, polish).toContain(word);
    // Without Polish (an English case): the marks no other model has are lost.
    const english = await read(null);
    expect(english).not.toContain('Długa');
  }, 60_000);
});
