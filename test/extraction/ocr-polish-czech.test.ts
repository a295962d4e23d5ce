import { afterAll, describe, expect, it } from 'vitest';
import { chooseOcrLanguages, createTesseractOcr, extractPages } from '../../src/domain/documents/index.ts';
import { readingIn } from '../../src/domain/documents/ocr/engine.ts';
import { textScan } from './helpers.ts';

/**
 * Issue 28 §2, OCR letters: Polish "ł", "ś", "ż" and Czech háčeks ("ř", "č", "ě") are in no other
 * installed model, so a Polish or Czech case's pages are read in its language (the pl and cs
 * packs' models, @tesseract.js-data/pol and ces). Scans drawn here, of our own words, in a font
 * that has the letters.
 */
function scanOf(lines: string[]): Promise<Uint8Array> {
  return textScan(lines, { width: 1400, height: 420, paper: 'rgb(246,246,242)', ink: '#161616', fontPx: 34, left: 60, top: 90, pitch: 110 });
}

describe('Polish and Czech pages with the real engine', () => {
  const ocr = createTesseractOcr();
  afterAll(() => ocr.close());

  const read = async (image: Uint8Array, sessionLocale: string | null) => {
    const pages = await extractPages({ ocr: readingIn(ocr, chooseOcrLanguages({ sessionLocale, caseTypeLocales: ['en'] })) }, { bytes: image, mimeType: 'image/png' });
    if (!pages.ok) throw new Error(pages.reason_code);
    return pages.value.pages.map((p) => p.text).join('\n');
  };

  it('reads ł, ś and ż when the case is Polish, which the fallback languages cannot', async () => {
    const image = await scanOf(['Najemca: Wiesław Żółkiewski', 'Adres: ul. Długa 5/3, 80-827 Gdańsk', 'Czynsz miesięczny: 2 450,00 zł']);
    expect(chooseOcrLanguages({ sessionLocale: 'pl', caseTypeLocales: ['en'] }).page).toEqual(['pol', 'eng']);
    const polish = await read(image, 'pl');
    for (const word of ['Wiesław', 'Żółkiewski', 'Długa', 'Gdańsk', 'zł']) expect(polish, polish).toContain(word);
    // Without Polish (an English case): the marks no other model has are lost.
    expect(await read(image, null)).not.toContain('Długa');
  }, 60_000);

  it('reads háčeks when the case is Czech, which the fallback languages cannot', async () => {
    const image = await scanOf(['Nájemce: Antonín Dvořák', 'Adresa: Dlouhá 12, 602 00 Brno', 'Nájemné: 14 500,00 Kč']);
    expect(chooseOcrLanguages({ sessionLocale: 'cs', caseTypeLocales: ['en'] }).page).toEqual(['ces', 'eng']);
    const czech = await read(image, 'cs');
    const words = ['Nájemce', 'Antonín', 'Dvořák', 'Dlouhá', 'Kč'];
    for (const word of words) expect(czech, czech).toContain(word);
    // An English case reads the page in the fallback languages and loses them ("Nåjemce", "Antonin").
    const english = await read(image, null);
    expect(english).not.toContain('Dvořák');
    expect(words.filter((word) => !english.includes(word)).length, english).toBeGreaterThan(1);
  }, 60_000);
});
