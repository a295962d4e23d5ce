import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { extractPages } from '../../src/domain/documents/index.ts';
import { readExifOrientation } from '../../src/domain/documents/image.ts';
import { decodeRaster } from '../../src/domain/documents/ocr/raster.ts';
import { estimateSkew } from '../../src/domain/documents/ocr/skew.ts';
import { fakeOcr, imageSeenByOcr } from './helpers.ts';

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
    const raster = await decodeRaster(await rotatedPhoto());
    expect({ width: raster.width, height: raster.height }).toEqual({ width: 300, height: 200 });
    // Its bytes are not handed to OCR as they came: Tesseract would read them turned.
    expect(raster.encoded).toBeUndefined();
    const pixel = (x: number, y: number) => raster.rgba[4 * (y * raster.width + x)]!;
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
    expect(Math.abs((await estimateSkew(await decodeRaster(await skewedPage(1.5)))) - 1.5)).toBeLessThanOrEqual(0.25);
    expect(Math.abs((await estimateSkew(await decodeRaster(await skewedPage(-2)))) + 2)).toBeLessThanOrEqual(0.25);
    expect(await estimateSkew(await decodeRaster(await skewedPage(0)))).toBe(0);
  });
});

/** A white page W×H with nothing on it (no skew to find), as a PNG. */
async function blankPage(width: number, height: number): Promise<Uint8Array> {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#fff';
  context.fillRect(0, 0, width, height);
  return new Uint8Array(await canvas.encode('png'));
}

/**
 * An engine that reads a page badly until it is turned: the first reading is two low-confidence
 * words, orientation detection answers `degrees`, and the second reading is a clean line.
 */
function turningOcr(degrees: 0 | 90 | 180 | 270, confidence = 6) {
  const readings = [
    { words: [{ text: 'xq', confidence: 30, x0: 5, x1: 20, top: 5, bottom: 15 }, { text: 'zv', confidence: 30, x0: 30, x1: 50, top: 5, bottom: 15 }] },
    { words: 'Name Ada Lovelace born on the tenth of December'.split(' ').map((text, i) => ({ text, confidence: 92, x0: 10 + 20 * i, x1: 28 + 20 * i, top: 20, bottom: 30 })) },
  ];
  const engine = {
    sizes: [] as Array<{ width: number; height: number }>,
    detections: 0,
    async recognize(image: Uint8Array) {
      const decoded = await imageSeenByOcr(image);
      engine.sizes.push({ width: decoded.width, height: decoded.height });
      return readings[Math.min(engine.sizes.length - 1, 1)]!;
    },
    async detectOrientation() {
      engine.detections++;
      return { degrees, confidence };
    },
    async close() {},
  };
  return engine;
}

describe('orientation before OCR', () => {
  it('reads a sideways page again turned upright, and maps its boxes back onto the page as uploaded', async () => {
    const ocr = turningOcr(90);
    const result = await extractPages({ ocr }, { bytes: await blankPage(300, 200) });
    expect(ocr.detections).toBe(1);
    // Turned a quarter clockwise: the second reading saw a 200×300 image.
    expect(ocr.sizes).toEqual([{ width: 300, height: 200 }, { width: 200, height: 300 }]);
    const page = result.ok ? result.value.pages[0]! : undefined;
    expect(page?.text).toBe('Name Ada Lovelace born on the tenth of December');
    expect(page?.size).toEqual({ width: 300, height: 200, unit: 'px' });
    // "N" sat at x 10–14.5, y 20–30 of the turned image; turned back: page (y, H − x).
    const boxes = page?.origin?.kind === 'box' ? page.origin.boxes : new Float32Array(4);
    expect(boxes[0]).toBeCloseTo(20, 1);
    expect(boxes[2]).toBeCloseTo(30, 1);
    expect(boxes[1]).toBeCloseTo(200 - 14.5, 1);
    expect(boxes[3]).toBeCloseTo(200 - 10, 1);
  });

  it('maps boxes of an upside-down page back by a half turn', async () => {
    const ocr = turningOcr(180);
    const result = await extractPages({ ocr }, { bytes: await blankPage(300, 200) });
    const page = result.ok ? result.value.pages[0]! : undefined;
    expect(page?.text.startsWith('Name')).toBe(true);
    const boxes = page?.origin?.kind === 'box' ? page.origin.boxes : new Float32Array(4);
    expect([boxes[0], boxes[1], boxes[2], boxes[3]].map((v) => Math.round(v! * 10) / 10)).toEqual([300 - 14.5, 200 - 30, 300 - 10, 200 - 20]);
  });

  it('keeps the first reading when detection is unsure, and never asks for a page that reads well', async () => {
    const unsure = turningOcr(90, 0.4);
    const first = await extractPages({ ocr: unsure }, { bytes: await blankPage(300, 200) });
    expect(unsure.detections).toBe(1);
    expect(unsure.sizes).toHaveLength(1);
    expect(first.ok && first.value.pages[0]!.text).toBe('xq zv');

    const upright = fakeOcr({ words: 'Name Ada Lovelace born on the tenth of December'.split(' ').map((text, i) => ({ text, confidence: 92, x0: 10 + 20 * i, x1: 28 + 20 * i, top: 20, bottom: 30 })) });
    const detect = { calls: 0 };
    const engine = { ...upright, recognize: upright.recognize, detectOrientation: async () => { detect.calls++; return { degrees: 90 as const, confidence: 9 }; } };
    await extractPages({ ocr: engine }, { bytes: await blankPage(300, 200) });
    expect(detect.calls).toBe(0);
  });
});
