import { PDFDocument, StandardFonts } from 'pdf-lib';
import { createCanvas, ImageData } from '@napi-rs/canvas';
import type { OcrEngine, OcrImageResult } from '../../src/domain/documents/ocr/engine.ts';
import { decodeRaster, rasterOfPixels, type Raster } from '../../src/domain/documents/ocr/raster.ts';
import type { ExtractionPage, FactDefinition } from '../../src/domain/extraction/types.ts';

export { PAY_STUB_FACTS, UTILITY_BILL_FACTS } from '../../scripts/corpus/case-types.ts';

export function page(text: string, method: ExtractionPage['method'] = 'plain', page_index = 0): ExtractionPage {
  return { page_index, text, method };
}

export function fact(type: FactDefinition['type'], anchors: string[], fact_id = 'f'): FactDefinition {
  return { fact_id, label: anchors[0] ?? fact_id, type, required: true, document_kinds: [], anchors };
}

/** An OCR engine for tests that never runs Tesseract: fixed words, or a promise that never settles. */
export function fakeOcr(result: OcrImageResult | 'hang' = { words: [] }): OcrEngine & { calls: number } {
  const engine = {
    calls: 0,
    async recognize(_image: Uint8Array, options: { signal?: AbortSignal } = {}) {
      engine.calls++;
      if (result === 'hang') {
        return new Promise<OcrImageResult>((_, reject) => {
          options.signal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })));
        });
      }
      return result;
    },
    async close() {},
  };
  return engine;
}

/** A one-page text PDF with each line drawn at (x, y) in points. */
export async function textPdf(lines: Array<{ text: string; x?: number; y: number }>, pages = 1): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage([595, 842]);
    for (const line of lines) page.drawText(line.text, { x: line.x ?? 50, y: line.y, size: 11, font });
  }
  return doc.save();
}

/** A PDF whose standard security handler needs a user password nobody has (garbage /U and /O). */
export function encryptedPdf(): Uint8Array {
  const hex = (n: number) => Array.from({ length: n }, (_, i) => ((i * 37 + 11) % 256).toString(16).padStart(2, '0')).join('');
  return new TextEncoder().encode(`%PDF-1.4
1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj
4 0 obj << /Filter /Standard /V 1 /R 2 /O <${hex(32)}> /U <${hex(32)}> /P -4 >> endobj
trailer << /Root 1 0 R /Encrypt 4 0 R /ID [<${hex(16)}> <${hex(16)}>] /Size 5 >>
%%EOF
`);
}

export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** A ZIP of stored (uncompressed) files; `declaredSizes` overrides entries' uncompressed sizes. */
export function storedZip(files: Record<string, string>, declaredSizes: Record<string, number> = {}): Uint8Array {
  const encoder = new TextEncoder();
  const locals: number[] = [];
  const central: number[] = [];
  const u16 = (n: number) => [n & 0xff, (n >>> 8) & 0xff];
  const u32 = (n: number) => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];
  let count = 0;
  for (const [name, content] of Object.entries(files)) {
    const nameBytes = [...encoder.encode(name)];
    const data = [...encoder.encode(content)];
    const offset = locals.length;
    const size = declaredSizes[name] ?? data.length;
    // CRC is left 0: the sniffer and the size guard never check it; mammoth would.
    locals.push(...u32(0x04034b50), ...u16(20), ...u16(0), ...u16(0), ...u16(0), ...u16(0), ...u32(0), ...u32(data.length), ...u32(size), ...u16(nameBytes.length), ...u16(0), ...nameBytes, ...data);
    central.push(...u32(0x02014b50), ...u16(20), ...u16(20), ...u16(0), ...u16(0), ...u16(0), ...u16(0), ...u32(0), ...u32(data.length), ...u32(size), ...u16(nameBytes.length), ...u16(0), ...u16(0), ...u16(0), ...u16(0), ...u32(0), ...u32(offset), ...nameBytes);
    count++;
  }
  const eocd = [...u32(0x06054b50), ...u16(0), ...u16(0), ...u16(count), ...u16(count), ...u32(central.length), ...u32(locals.length), ...u16(0)];
  return new Uint8Array([...locals, ...central, ...eocd]);
}

/** A PNG header claiming the given size, followed by junk instead of image data. */
export function pngHeader(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(64);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  new DataView(bytes.buffer).setUint32(16, width);
  new DataView(bytes.buffer).setUint32(20, height);
  bytes.set([8, 2, 0, 0, 0], 24);
  return bytes;
}

/**
 * An image as the OCR engine is handed it, decoded for a test to look at: a binary PPM or, when
 * every pixel is grey, PGM (pages and crops the pipeline changed, ocr/raster.ts) or the PNG/JPEG
 * that came in.
 */
export async function imageSeenByOcr(bytes: Uint8Array): Promise<Raster> {
  const header = new TextDecoder().decode(bytes.subarray(0, 40)).match(/^P([56])\n(\d+) (\d+)\n255\n/);
  if (!header) return decodeRaster(bytes);
  const [channels, width, height] = [header[1] === '5' ? 1 : 3, Number(header[2]), Number(header[3])];
  const data = bytes.subarray(header[0].length);
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const [r, g, b] = channels === 1 ? [data[i]!, data[i]!, data[i]!] : [data[3 * i]!, data[3 * i + 1]!, data[3 * i + 2]!];
    rgba.set([r, g, b, 255], 4 * i);
  }
  return rasterOfPixels(width, height, rgba);
}

/** A raster as a PNG file, as an upload would bring it. */
export async function pngOf(raster: Raster): Promise<Uint8Array> {
  const canvas = createCanvas(raster.width, raster.height);
  canvas.getContext('2d').putImageData(new ImageData(raster.rgba, raster.width, raster.height), 0, 0);
  return new Uint8Array(await canvas.encode('png'));
}

/**
 * A scan of our own words: `lines` of text drawn on plain paper in DejaVu Sans (which has the
 * marked letters), one every `pitch` pixels from `top`, as a PNG.
 */
export async function textScan(lines: readonly string[], page: { width: number; height: number; paper: string; ink: string; fontPx: number; left: number; top: number; pitch: number }): Promise<Uint8Array> {
  const canvas = createCanvas(page.width, page.height);
  const context = canvas.getContext('2d');
  context.fillStyle = page.paper;
  context.fillRect(0, 0, page.width, page.height);
  context.fillStyle = page.ink;
  context.font = `${page.fontPx}px "DejaVu Sans"`;
  lines.forEach((line, i) => context.fillText(line, page.left, page.top + i * page.pitch));
  return new Uint8Array(await canvas.encode('png'));
}
