/**
 * A page image as pixels: decoded once, and every later step (specks, skew, turns, the second
 * readings' crops, the search for lost marks) reads or derives pixels from it instead of decoding
 * PNG again. Before, a page photo was decoded up to six times (EXIF turn, downscale, specks, skew,
 * rotation, second readings) and encoded as PNG up to four times. Now it is decoded once, and
 * OCR is handed its pixels uncompressed ({@link pixmapOf}).
 *
 * This module also owns the one rule for what counts as ink ({@link inkLevel}). Four were in use:
 * specks (below 60 % of the paper's tone), skew (a mean of R, G and B below 110), lost marks
 * (luminance below 150) and the slash of "ø" (72 % of the way from the letter's darkest pixel to
 * its paper). They were the same idea at different strengths; now each is the paper's tone and
 * the darkest ink around, with one share between them.
 */
import type { Canvas, SKRSContext2D as Context } from '@napi-rs/canvas';
import { readExifOrientation } from '../image.ts';

export interface Raster {
  readonly width: number;
  readonly height: number;
  /** RGBA, row by row, as canvas ImageData holds it. */
  readonly rgba: Uint8ClampedArray;
  /** The paper's tone: the median luminance, as most of a page is paper (see {@link paperTone}). */
  readonly paper: number;
  /** The bytes this raster was decoded from, while nothing has changed it: OCR is given them as they came. */
  readonly encoded?: Uint8Array;
}

/**
 * Decodes a PNG or JPEG, brought down to at most `maxPixels` when it is larger: OCR time grows with
 * pixel count while accuracy stops improving around 200–300 dpi, and a large image is drawn
 * straight onto the smaller canvas, so only its decoded bitmap is ever full size. The canvas
 * decoder (Skia) applies a JPEG's EXIF orientation — measured: a 200×300 JPEG tagged 6 decodes as
 * 300×200 — so the raster is the photo upright, as every viewer shows it, and its bytes are not
 * handed on for such a photo: Tesseract's reader ignores EXIF.
 */
export async function decodeRaster(bytes: Uint8Array, maxPixels = Infinity): Promise<Raster> {
  const { loadImage, createCanvas } = await import('@napi-rs/canvas');
  const image = await loadImage(Buffer.from(bytes));
  const factor = Math.min(1, Math.sqrt(maxPixels / (image.width * image.height)));
  const width = factor < 1 ? Math.max(1, Math.floor(image.width * factor)) : image.width;
  const height = factor < 1 ? Math.max(1, Math.floor(image.height * factor)) : image.height;
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  if (factor < 1) context.imageSmoothingQuality = 'high';
  context.drawImage(image, 0, 0, width, height);
  const raster = rasterOfPixels(width, height, context.getImageData(0, 0, width, height).data);
  return factor === 1 && readExifOrientation(bytes) === 1 ? { ...raster, encoded: bytes } : raster;
}

/** A raster over pixels already in memory (a canvas's ImageData). */
export function rasterOfPixels(width: number, height: number, rgba: Uint8ClampedArray): Raster {
  return { width, height, rgba, paper: paperTone(rgba) };
}

/**
 * The raster as the OCR engine is handed it: its original bytes when nothing has changed it, else
 * its pixels as a binary PPM (P6: a one-line header, then RGB), which Tesseract's image library
 * reads without decompressing. Encoding a corpus scan (1.2 MP) as PNG took ~0.28 s of a ~1 s page
 * and Tesseract then inflated it again; as PPM it takes ~0.02 s, and Tesseract read the same words
 * with the same confidences and boxes on every page compared (6 corpus scans).
 *
 * A raster whose every pixel is grey (R = G = B: rendered PDF pages, greyscale scans) goes as a
 * PGM (P5, one byte a pixel) instead: a third of the bytes to copy into the OCR worker, and
 * Tesseract thresholds and reads one channel instead of three that are the same. Its words,
 * confidences and boxes are the same (Otsu on equal channels gives one threshold; luminance of
 * equal channels is the channel); the bench's 300 dpi page read in 1.02–1.22 s instead of
 * 1.33–1.36 s, its second-reading crops in 138–152 ms instead of 155–192 (issue 28 §5).
 */
export function pixmapOf(raster: Raster): Uint8Array {
  if (raster.encoded) return raster.encoded;
  return pixmap(raster.width, raster.height, raster.rgba);
}

function pixmap(width: number, height: number, rgba: Uint8ClampedArray): Uint8Array {
  const pixels = width * height;
  let grey = true;
  for (let i = 0; i < 4 * pixels; i += 4) {
    if (rgba[i] !== rgba[i + 1] || rgba[i] !== rgba[i + 2]) { grey = false; break; }
  }
  const header = new TextEncoder().encode(`${grey ? 'P5' : 'P6'}\n${width} ${height}\n255\n`);
  const out = new Uint8Array(header.length + pixels * (grey ? 1 : 3));
  out.set(header);
  if (grey) {
    for (let i = 0, o = header.length; i < pixels; i++, o++) out[o] = rgba[4 * i]!;
    return out;
  }
  for (let i = 0, o = header.length; i < pixels; i++, o += 3) {
    out[o] = rgba[4 * i]!;
    out[o + 1] = rgba[4 * i + 1]!;
    out[o + 2] = rgba[4 * i + 2]!;
  }
  return out;
}

/** Luminance (ITU-R BT.601, as integers 0–255) of the pixel at RGBA offset `i`. */
export function luminanceAt(rgba: Uint8ClampedArray, i: number): number {
  return Math.trunc((rgba[i]! * 299 + rgba[i + 1]! * 587 + rgba[i + 2]! * 114) / 1000);
}

/** The median luminance: a page is mostly paper, so this is the paper's tone, grey or white. */
export function paperTone(rgba: Uint8ClampedArray): number {
  const count = rgba.length / 4;
  const histogram = new Uint32Array(256);
  for (let i = 0; i < count; i++) histogram[luminanceAt(rgba, 4 * i)]!++;
  for (let v = 0, seen = 0; v < 256; v++) {
    seen += histogram[v]!;
    if (seen * 2 >= count) return v;
  }
  return 255;
}

/**
 * Ink is darker than this share of the way from the darkest ink to the paper. 0.6 is the share
 * speck removal was measured with (tuned half of the corpus scans, 311 facts: F1 0.913 at 0.6);
 * with print taken as black it is where lost marks (150 on paper of 230–250) and skew (110) drew
 * the line, within ±35 levels. Moving the other three onto it changed, on 60 corpus scans: no
 * lost capital mark (378 words), 32 of 14,040 "ink above a letter" answers (26 fewer and 6 more,
 * all on words without marks), 3 of 694 slash answers (3 more, none on an "ø"), the skew of 4
 * pages by 0.25–0.5°. See docs/decisions.md (issue 28 §3) for what that did to the evaluation.
 */
export const INK_SHARE = 0.6;

/**
 * The one ink rule: the luminance below which a pixel is ink, on paper of tone `paper`, where the
 * darkest ink is `darkest` — black (0) for print, unless a place is known to be fainter: a thin
 * stroke comes out of a scan grey, and the slash of an "ø" is judged against its letter's own
 * darkest pixel (lost-marks.ts).
 */
export function inkLevel(paper: number, darkest = 0): number {
  return darkest + INK_SHARE * (paper - darkest);
}

/** Pixels of part of a raster (RGBA, row by row), where it sits, and the raster's paper tone. */
export interface PixelArea {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
  readonly data: Uint8ClampedArray;
  readonly paper: number;
}

/** Copies part of a raster; what lies outside it reads as white paper. */
export function pixelArea(raster: Raster, area: { left: number; top: number; width: number; height: number }): PixelArea {
  const width = Math.max(1, area.width);
  const height = Math.max(1, area.height);
  const data = new Uint8ClampedArray(width * height * 4).fill(255);
  for (let y = 0; y < height; y++) {
    const sy = area.top + y;
    if (sy < 0 || sy >= raster.height) continue;
    const x0 = Math.max(0, -area.left);
    const x1 = Math.min(width, raster.width - area.left);
    if (x1 <= x0) continue;
    data.set(raster.rgba.subarray(4 * (sy * raster.width + area.left + x0), 4 * (sy * raster.width + area.left + x1)), 4 * (y * width + x0));
  }
  return { left: area.left, top: area.top, width, height, data, paper: raster.paper };
}

/** Whether the pixel at page point (x, y) of an area is ink. */
export function isInkIn(area: PixelArea, x: number, y: number, level = inkLevel(area.paper)): boolean {
  return luminanceAt(area.data, ((y - area.top) * area.width + (x - area.left)) * 4) < level;
}


/**
 * Canvases holding a raster's pixels, only ever drawn from. A page's raster was put on a canvas
 * twice or three times — to measure its skew, to turn it, and for the second readings' crops —
 * at 30–45 ms each for a 4 MP page; now once. Weak: a canvas lives as long as its raster.
 */
const canvases = new WeakMap<Raster, Promise<Canvas>>();

/** A canvas holding the raster's pixels, to draw from (never onto). */
function canvasOf(raster: Raster): Promise<Canvas> {
  let canvas = canvases.get(raster);
  if (!canvas) {
    canvas = (async () => {
      const { createCanvas, ImageData } = await import('@napi-rs/canvas');
      const drawn = createCanvas(raster.width, raster.height);
      drawn.getContext('2d').putImageData(new ImageData(raster.rgba, raster.width, raster.height), 0, 0);
      return drawn;
    })();
    canvases.set(raster, canvas);
  }
  return canvas;
}

/**
 * A new raster of `width`×`height`, drawn from this one by `draw`. Drawing from a canvas and
 * drawing from the decoded image give the same pixels, but for ±1 on ~10 in 10⁶ values of a
 * scaled crop and the anti-aliased edge of a rotated page (measured on a corpus scan).
 */
export async function drawRaster(raster: Raster, width: number, height: number, draw: (context: Context, source: Canvas) => void): Promise<Raster> {
  const { createCanvas } = await import('@napi-rs/canvas');
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  draw(context, await canvasOf(raster));
  return { width, height, rgba: context.getImageData(0, 0, width, height).data, paper: raster.paper };
}

/** Rotated by `-degrees` about its centre on white, undoing an estimated skew; same size. */
export function rotateRaster(raster: Raster, degrees: number): Promise<Raster> {
  const { width, height } = raster;
  return drawRaster(raster, width, height, (context, source) => {
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, width, height);
    context.translate(width / 2, height / 2);
    context.rotate((-degrees * Math.PI) / 180);
    context.translate(-width / 2, -height / 2);
    context.drawImage(source, 0, 0);
  });
}

/** Turned clockwise by whole quarter turns (1 = 90°). */
export function turnRaster(raster: Raster, quarterTurns: 1 | 2 | 3): Promise<Raster> {
  const sideways = quarterTurns % 2 === 1;
  const width = sideways ? raster.height : raster.width;
  const height = sideways ? raster.width : raster.height;
  return drawRaster(raster, width, height, (context, source) => {
    context.translate(width / 2, height / 2);
    context.rotate((quarterTurns * Math.PI) / 2);
    context.drawImage(source, -raster.width / 2, -raster.height / 2);
  });
}

/** A raster ready to be cut from many times: its pixels put on a canvas once (16 MB for 4 MP). */
export interface Drawable {
  readonly raster: Raster;
  readonly canvas: Canvas;
}

export async function drawableOf(raster: Raster): Promise<Drawable> {
  return { raster, canvas: await canvasOf(raster) };
}

/** Part of the raster enlarged `scale` times, smoothed, for OCR ({@link pixmapOf}): a line cut out for a second reading. */
export async function cropForOcr(page: Drawable, box: { x0: number; y0: number; x1: number; y1: number }, scale: number): Promise<Uint8Array> {
  const { createCanvas } = await import('@napi-rs/canvas');
  const canvas = createCanvas(Math.round((box.x1 - box.x0) * scale), Math.round((box.y1 - box.y0) * scale));
  const context = canvas.getContext('2d');
  context.imageSmoothingQuality = 'high';
  context.drawImage(page.canvas, box.x0, box.y0, box.x1 - box.x0, box.y1 - box.y0, 0, 0, canvas.width, canvas.height);
  return pixmap(canvas.width, canvas.height, context.getImageData(0, 0, canvas.width, canvas.height).data);
}
