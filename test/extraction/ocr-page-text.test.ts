import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { extractPages } from '../../src/domain/documents/index.ts';
import type { OcrEngine } from '../../src/domain/documents/ocr/engine.ts';
import { decodeRaster, rasterOfPixels, type Raster } from '../../src/domain/documents/ocr/raster.ts';
import { removeSpecks } from '../../src/domain/documents/ocr/specks.ts';
import { imageSeenByOcr } from './helpers.ts';
import { sourceOf } from '../../src/domain/documents/origin.ts';

/**
 * A 400×300 page on off-white paper: three lines of "words" (dark bars, level, so there is no
 * skew to undo), a full stop 4 px right of the first word, an i-dot 4 px above it, and one speck of
 * dust alone in the margin.
 */
async function speckledPage(): Promise<Uint8Array> {
  const canvas = createCanvas(400, 300);
  const context = canvas.getContext('2d');
  context.fillStyle = 'rgb(240,240,236)';
  context.fillRect(0, 0, 400, 300);
  context.fillStyle = '#111';
  for (const y of [50, 95, 140]) for (const x of [50, 130, 210]) context.fillRect(x, y, 60, 14);
  context.fillRect(114, 61, 2, 2); // its full stop
  context.fillRect(80, 44, 2, 2); // an i-dot
  context.fillRect(320, 250, 2, 2); // dust
  return new Uint8Array(await canvas.encode('png'));
}

function darkAt(raster: Raster, points: Array<[number, number]>): boolean[] {
  return points.map(([x, y]) => raster.rgba[4 * (y * raster.width + x)]! < 100);
}

describe('speck removal before OCR', () => {
  it('paints over a lone speck and keeps full stops, dots and letters next to text', async () => {
    const { raster, removed } = removeSpecks(await decodeRaster(await speckledPage()));
    expect(removed).toBe(1);
    expect(darkAt(raster, [[320, 250], [114, 61], [80, 44], [70, 55]])).toEqual([false, true, true, true]);
  });

  it('gives the OCR engine the page without its specks', async () => {
    const seen: Uint8Array[] = [];
    const ocr: OcrEngine = {
      async recognize(image) {
        seen.push(image);
        return { words: [{ text: 'Word.', confidence: 95, x0: 50, x1: 116, top: 48, bottom: 66 }] };
      },
      async close() {},
    };
    const result = await extractPages({ ocr }, { bytes: await speckledPage() });
    expect(result.ok).toBe(true);
    expect(darkAt(await imageSeenByOcr(seen[0]!), [[320, 250], [114, 61]])).toEqual([false, true]);
  });
});

describe('OCR column gaps', () => {
  it('splits header-table columns 1.3 line heights apart and keeps word spaces of 0.9', async () => {
    const { ocrImageToPage } = await import('../../src/domain/documents/ocr/words.ts');
    const word = (text: string, x0: number, x1: number) => ({ text, confidence: 95, x0, x1, top: 10, bottom: 30 });
    const ocr: OcrEngine = {
      async recognize() {
        // Band height 20: "1165"→"København" 18 apart (0.9), "København"→"K" 12, "K"→"26." 26 (1.3).
        return { words: [word('1165', 0, 40), word('København', 58, 150), word('K', 162, 172), word('26.', 198, 228), word('april', 240, 290)] };
      },
      async close() {},
    };
    const page = await ocrImageToPage(ocr, rasterOfPixels(300, 40, new Uint8ClampedArray(300 * 40 * 4).fill(255)), 0, new AbortController().signal, { size: { width: 300, height: 40, unit: 'px' }, pixelsPerUnit: 1 });
    expect(page.ok && page.value.text).toBe('1165 København K\t26. april');
  });
});

describe('second reading of unsure words', () => {
  // A 300×60 page; what is drawn does not matter to the fake engine, only that it decodes.
  const blankPage = async () => {
    const canvas = createCanvas(300, 60);
    const context = canvas.getContext('2d');
    context.fillStyle = '#fff';
    context.fillRect(0, 0, 300, 60);
    return decodeRaster(new Uint8Array(await canvas.encode('png')));
  };
  const frame = { size: { width: 300, height: 60, unit: 'px' as const }, pixelsPerUnit: 1 };
  const word = (text: string, confidence: number, x0: number, x1: number) => ({ text, confidence, x0, x1, top: 20, bottom: 40 });

  it('keeps a marked letter the enlarged line reading is surer of, and only for the unsure words', async () => {
    const { ocrImageToPage } = await import('../../src/domain/documents/ocr/words.ts');
    const { rereadScale } = await import('../../src/domain/documents/ocr/second-readings.ts');
    const crops: Array<{ width: number; height: number }> = [];
    const ocr: OcrEngine = {
      async recognize() {
        return { words: [word('Name:', 96, 10, 60), word('Jorgen', 81, 90, 150), word('Ostergaard', 89, 158, 260)] };
      },
      async recognizeLine(image) {
        const crop = await imageSeenByOcr(image);
        crops.push({ width: crop.width, height: crop.height });
        // In the enlarged crop's pixels, which start at page x 80 (see below).
        const at = (x: number) => (x - 80) * rereadScale(20);
        return { words: [word('Jørgen', 95, at(90), at(150)), word('Østergaard', 84, at(158), at(260))] };
      },
      async close() {},
    };
    const page = await ocrImageToPage(ocr, await blankPage(), 0, new AbortController().signal, frame);
    expect(page.ok && page.value.text).toBe('Name:\tJørgen Ostergaard');
    // One crop for the run of two unsure words; "Name:" (96) is not read again.
    expect(crops).toHaveLength(1);
    expect(crops[0]!.height).toBeGreaterThan(2 * 20);
    // The new word's box is mapped back to page pixels: the crop starts at 80 (halfway to "Name:"
    // is 75, half a line height before the run is 80).
    const box = page.ok ? sourceOf(page.value.origin, 0, 6, 12) : undefined;
    expect(box).toMatchObject({ kind: 'box', y: 20, height: 20 });
    expect(box && 'x' in box && [box.x, box.x + box.width]).toEqual([90, 150]);
  });

  it('enlarges a tall line less than a small one, to the same height', async () => {
    const { ocrImageToPage } = await import('../../src/domain/documents/ocr/words.ts');
    const { REREAD_BAND_HEIGHT } = await import('../../src/domain/documents/ocr/second-readings.ts');
    const heights: number[] = [];
    for (const band of [[20, 40], [0, 60]] as const) {
      const ocr: OcrEngine = {
        async recognize() { return { words: [{ text: 'Koln', confidence: 91, x0: 90, x1: 150, top: band[0], bottom: band[1] }] }; },
        async recognizeLine(image) { heights.push((await imageSeenByOcr(image)).height); return { words: [] }; },
        async close() {},
      };
      await ocrImageToPage(ocr, await blankPage(), 0, new AbortController().signal, frame);
    }
    // A 20 px line is enlarged 3.5×; a 60 px one only to the same 70 px (its crop's 0.2 margins are
    // cut by the page's edges).
    expect(heights[0]).toBe(Math.round(20 * 1.4 * (REREAD_BAND_HEIGHT / 20)));
    expect(heights[1]).toBe(Math.round(60 * (REREAD_BAND_HEIGHT / 60)));
  });

  it('does not lay out twice a word the page reading boxed inside an unsure one (regression: "BlueBlue Ridge")', async () => {
    const { ocrImageToPage } = await import('../../src/domain/documents/ocr/words.ts');
    const { rereadScale } = await import('../../src/domain/documents/ocr/second-readings.ts');
    const ocr: OcrEngine = {
      // "EMPLOYER" (unsure) was boxed over "Acme" after it; "Ltd" stands apart.
      async recognize() { return { words: [word('EMPLOYER', 76, 10, 170), word('Acme', 96, 130, 168), word('Ltd', 96, 180, 210)] }; },
      async recognizeLine() {
        // The crop runs from page x 0 (half a line before the run) to 175 (halfway to "Ltd").
        const at = (x: number) => x * rereadScale(20);
        return { words: [word('EMPLOYER', 93, at(10), at(120)), word('Acme', 93, at(130), at(168))] };
      },
      async close() {},
    };
    const page = await ocrImageToPage(ocr, await blankPage(), 0, new AbortController().signal, frame);
    expect(page.ok && page.value.text.replace(/\s+/g, ' ')).toBe('EMPLOYER Acme Ltd');
  });

  it('keeps the first reading when the second is less sure, changes more than letters, or fails', async () => {
    const { ocrImageToPage } = await import('../../src/domain/documents/ocr/words.ts');
    const first = async () => ({ words: [word('Koln', 91, 90, 150)] });
    const lessSure: OcrEngine = { recognize: first, async recognizeLine() { return { words: [word('Kôln', 60, 35, 245)] }; }, async close() {} };
    // The crop's edge read as a mark: surer, but not only letters changed.
    const strayMark: OcrEngine = { recognize: first, async recognizeLine() { return { words: [word('Köln,-', 96, 35, 245)] }; }, async close() {} };
    const failing: OcrEngine = { recognize: first, async recognizeLine() { throw new Error('engine died'); }, async close() {} };
    for (const ocr of [lessSure, strayMark, failing]) {
      const page = await ocrImageToPage(ocr, await blankPage(), 0, new AbortController().signal, frame);
      expect(page.ok && page.value.text).toBe('Koln');
    }
  });
});
