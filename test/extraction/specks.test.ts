import { createCanvas, loadImage } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { extractPages } from '../../src/domain/documents/index.ts';
import { removeSpecks } from '../../src/domain/documents/image.ts';
import type { OcrEngine } from '../../src/domain/documents/ocr.ts';

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

async function darkAt(png: Uint8Array, points: Array<[number, number]>): Promise<boolean[]> {
  const image = await loadImage(Buffer.from(png));
  const canvas = createCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  return points.map(([x, y]) => context.getImageData(x, y, 1, 1).data[0]! < 100);
}

describe('speck removal before OCR', () => {
  it('paints over a lone speck and keeps full stops, dots and letters next to text', async () => {
    const { image, removed } = await removeSpecks(await speckledPage());
    expect(removed).toBe(1);
    expect(await darkAt(image, [[320, 250], [114, 61], [80, 44], [70, 55]])).toEqual([false, true, true, true]);
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
    expect(await darkAt(seen[0]!, [[320, 250], [114, 61]])).toEqual([false, true]);
  });
});
