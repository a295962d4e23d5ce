import { afterAll, describe, expect, it } from 'vitest';
import { chooseOcrLanguages, createTesseractOcr, extractPages } from '../../src/domain/documents/index.ts';
import { readingIn } from '../../src/domain/documents/ocr/engine.ts';
import { textScan } from './helpers.ts';

/**
 * Issue 28 §5, the engine's memory: the OCR engine reads in two lanes, each with a page reader of
 * its own, but only the language set in use keeps its second reader, at most two sets stay
 * resident, and the line readers that read marks are shared by the lanes. Without these bounds a
 * child reading cases in several languages held 1,090 MB of OCR workers against a 1,536 MB cap
 * (docs/decisions.md, issue 28 §5, fourth session). Real engine, our own words.
 */
describe('the OCR engine holds a bounded set of workers', () => {
  const ocr = createTesseractOcr();
  afterAll(() => ocr.close());

  it('keeps a second reader for the languages in use only, two sets at most, and one line reader per language', async () => {
    const image = await textScan(['Locataire : Hélène Lefèvre', 'Adresse : 12 rue de la Paix, 75002 Paris', 'Loyer mensuel : 1 250,00 €'], { width: 1200, height: 360, paper: 'rgb(248,248,244)', ink: '#151515', fontPx: 30, left: 50, top: 80, pitch: 100 });
    const readers = () => ocr.workersHeld().filter((w) => w.startsWith('read:'));

    await ocr.recognize(image, { languages: ['fra', 'eng'] });
    expect(readers()).toEqual(['read:fra+eng', 'read:fra+eng#2']);

    await ocr.recognize(image, { languages: ['deu', 'eng'] });
    // French stays resident for the next French case, without its second reader.
    expect(readers()).toEqual(['read:deu+eng', 'read:deu+eng#2', 'read:fra+eng']);

    await ocr.recognize(image, { languages: ['pol', 'eng'] });
    // A third set: the least recently used one goes altogether.
    expect(readers()).toEqual(['read:deu+eng', 'read:pol+eng', 'read:pol+eng#2']);

    // A French case's page: read, with its second readings two at a time, by the French readers.
    const pages = await extractPages({ ocr: readingIn(ocr, chooseOcrLanguages({ sessionLocale: 'fr', caseTypeLocales: ['en'] })) }, { bytes: image, mimeType: 'image/png' });
    expect(pages.ok && pages.value.pages[0]!.text).toContain('Paris');
    expect(readers().filter((w) => w.endsWith('#2'))).toEqual(['read:fra+eng#2']);

    // Marks read again in one language by both lanes at once share that language's line reader.
    const [a, b] = await Promise.all([ocr.recognizeLine!(image, { language: 'deu' }), ocr.recognizeLine!(image, { language: 'deu' })]);
    expect(a.words.map((w) => w.text)).toEqual(b.words.map((w) => w.text));
    expect(ocr.workersHeld().filter((w) => w.startsWith('line:'))).toEqual(['line:deu']);
  }, 120_000);

  it('reads documents of three languages at once, each with its own readers, none stopped under another', async () => {
    const image = await textScan(['Mieter: Jürgen Köhler', 'Adresse: Hauptstraße 5, 10115 Berlin', 'Monatsmiete: 980,00 €'], { width: 1200, height: 360, paper: 'rgb(248,248,244)', ink: '#151515', fontPx: 30, left: 50, top: 80, pitch: 100 });
    const read = async (sessionLocale: string) => {
      const pages = await extractPages({ ocr: readingIn(ocr, chooseOcrLanguages({ sessionLocale, caseTypeLocales: ['en'] })) }, { bytes: image.slice(), mimeType: 'image/png' });
      if (!pages.ok) throw new Error(pages.reason_code);
      return pages.value.pages[0]!.text;
    };
    // Two lanes, three language sets, two resident at most: every reading still completes.
    const texts = await Promise.all(['de', 'fr', 'pl', 'de'].map(read));
    for (const text of texts) expect(text).toContain('10115 Berlin');
    expect(ocr.workersHeld().filter((w) => w.startsWith('read:') && !w.endsWith('#2')).length).toBeLessThanOrEqual(3);
  }, 120_000);
});
