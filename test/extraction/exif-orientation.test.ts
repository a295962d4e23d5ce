import { createCanvas, loadImage } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { extractPages } from '../../src/domain/documents/index.ts';
import { estimateSkew, readExifOrientation, uprightImage } from '../../src/domain/documents/image.ts';
import { fakeOcr } from './helpers.ts';

/** An APP1 segment holding one IFD entry: Orientation (0x0112) = `value`, big-endian TIFF. */
function exifSegment(value: number): Uint8Array {
  const tiff = [0x4d, 0x4d, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, value, 0, 0, 0, 0, 0, 0];
  const body = [...'Exif'].map((c) => c.charCodeAt(0)).concat([0, 0], tiff);
  const length = body.length + 2;
  return new Uint8Array([0xff, 0xe1, length >> 8, length & 0xff, ...body]);
}

/**
 * A phone photo of an upright 300×200 page with a dark square at its top-left corner, stored
 * turned a quarter counter-clockwise (200×300 pixels) with EXIF orientation 6, as cameras do.
 */
async function rotatedPhoto(): Promise<Uint8Array> {
  const stored = createCanvas(200, 300);
  const context = stored.getContext('2d');
  context.fillStyle = '#fff';
  context.fillRect(0, 0, 200, 300);
  context.setTransform(0, -1, 1, 0, 0, 300);
  context.fillStyle = '#000';
  context.fillRect(0, 0, 60, 40);
  const jpeg = new Uint8Array(await stored.encode('jpeg', 92));
  const exif = exifSegment(6);
  return new Uint8Array([...jpeg.subarray(0, 2), ...exif, ...jpeg.subarray(2)]);
}

describe('EXIF orientation before OCR', () => {
  it('reads the orientation tag, and 1 for images without one', async () => {
    expect(readExifOrientation(await rotatedPhoto())).toBe(6);
    expect(readExifOrientation(new Uint8Array(await createCanvas(10, 10).encode('jpeg')))).toBe(1);
  });

  it('turns the photo upright: size swapped, the corner square back at the top left', async () => {
    const { image, size } = await uprightImage(await rotatedPhoto());
    expect(size).toEqual({ width: 300, height: 200 });
    const decoded = await loadImage(Buffer.from(image));
    const canvas = createCanvas(decoded.width, decoded.height);
    const context = canvas.getContext('2d');
    context.drawImage(decoded, 0, 0);
    const pixel = (x: number, y: number) => context.getImageData(x, y, 1, 1).data[0]!;
    expect(pixel(20, 15)).toBeLessThan(80);
    expect(pixel(280, 15)).toBeGreaterThan(180);
    expect(pixel(20, 185)).toBeGreaterThan(180);
  });

  it('gives the OCR page the upright size', async () => {
    const result = await extractPages({ ocr: fakeOcr({ words: [{ text: 'Upright', confidence: 90, x0: 10, x1: 80, top: 10, bottom: 30 }] }) }, { bytes: await rotatedPhoto() });
    expect(result.ok && result.value.pages[0]!.size).toEqual({ width: 300, height: 200, unit: 'px' });
  });
});

/** A page of dark "text lines" turned `degrees` clockwise, as a PNG. */
async function skewedPage(degrees: number): Promise<Uint8Array> {
  const canvas = createCanvas(1000, 1300);
  const context = canvas.getContext('2d');
  context.fillStyle = '#fff';
  context.fillRect(0, 0, 1000, 1300);
  context.translate(500, 650);
  context.rotate((degrees * Math.PI) / 180);
  context.translate(-500, -650);
  context.fillStyle = '#111';
  for (let y = 150; y < 1150; y += 45) for (let x = 120; x < 880; x += 70) context.fillRect(x, y, 55, 14);
  return new Uint8Array(await canvas.encode('png'));
}

describe('deskew before OCR', () => {
  it('estimates the skew of a page photo within a quarter degree, and leaves a straight page alone', async () => {
    expect(Math.abs((await estimateSkew(await skewedPage(1.5))) - 1.5)).toBeLessThanOrEqual(0.25);
    expect(Math.abs((await estimateSkew(await skewedPage(-2))) + 2)).toBeLessThanOrEqual(0.25);
    expect(await estimateSkew(await skewedPage(0))).toBe(0);
  });
});
