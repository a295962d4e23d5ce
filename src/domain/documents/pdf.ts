import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { layoutFragments, type PositionedFragment } from './canonical-text.ts';
// The standard-14 metrics (and pako under them) load with pdfjs, not at start: only PDF text layers use them (issue 16, idle RSS).
import type { Font } from '@pdf-lib/standard-fonts';
import type { OcrFrame } from './ocr/words.ts';
import { boxOrigin, type PageOrigin } from './origin.ts';
import { documentFailure, documentOk, type DocumentResult, type PageText } from './types.ts';

/**
 * PDF → canonical page texts with pdfjs (Mozilla's parser, the legacy build, which is the one
 * meant for Node). Pages whose text layer is (nearly) empty are rendered to a PNG and handed to
 * the caller's OCR function, so scanned PDFs work too.
 *
 * pdfjs runs its "worker" on the calling thread in Node: parsing blocks the event loop for the
 * duration of a page (a few ms for a text page). Call this from the job worker, not a request.
 */

type PdfjsModule = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

export interface PdfExtractionOptions {
  readonly maxPages: number;
  /** Rendered page images are capped at this many pixels before OCR (decompression-bomb guard). */
  readonly maxRenderPixels: number;
  /** Scale of the OCR rendering: 2 ≈ 144 dpi, enough for 9 pt text and ~4× faster than 300 dpi. */
  readonly renderScale: number;
  /** Images above this many pixels are left out before pdfjs decodes them (see ExtractionLimits). */
  readonly maxImagePixels: number;
  readonly signal: AbortSignal;
  /** OCR for a page without a usable text layer; given a PNG, returns that page's text. */
  readonly ocrPage: (png: Uint8Array, pageIndex: number, frame: OcrFrame) => Promise<DocumentResult<PageText>>;
}

/** A text layer with fewer letters or digits than this is treated as absent (scans often carry a
 * stray page number or a producer watermark in their text layer). */
const MIN_TEXT_LAYER_ALNUM = 8;

let pdfjsLoading: Promise<{ pdfjs: PdfjsModule; assets: PdfAssets }> | undefined;

interface PdfAssets { standardFontDataUrl: string; cMapUrl: string; wasmUrl: string; iccUrl: string; BinaryDataFactory: typeof PackagedAssets; }

/**
 * Loads pdfjs once per process. Caching the module promise is not shared mutable state: it is the
 * module loader's own cache, made lazy so processes that never see a PDF never pay ~120 ms and
 * ~30 MB for it. The worker module is loaded up front and exposed as `globalThis.pdfjsWorker`,
 * pdfjs's documented hook for running without a Worker; this avoids it resolving a relative
 * worker path, which breaks under bundlers and test runners.
 */
function loadPdfjs(): Promise<{ pdfjs: PdfjsModule; assets: PdfAssets }> {
  pdfjsLoading ??= (async () => {
    // A specifier in a variable: the worker module ships no type declarations, and needs none here.
    const workerModule = 'pdfjs-dist/legacy/build/pdf.worker.mjs';
    const worker: unknown = await import(workerModule);
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
    const { readFile } = await import('node:fs/promises');
    assetFiles = (path) => readFile(path);
    standardFonts = await import('@pdf-lib/standard-fonts');
    const root = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
    // pdfjs in Node reads these with fs when given plain paths ending in a separator.
    const dir = (name: string) => join(root, name) + '/';
    return {
      pdfjs,
      assets: { standardFontDataUrl: dir('standard_fonts'), cMapUrl: dir('cmaps'), wasmUrl: dir('wasm'), iccUrl: dir('iccs'), BinaryDataFactory: PackagedAssets },
    };
  })();
  return pdfjsLoading;
}

/** Reads a pdfjs asset file; set by loadPdfjs. */
let assetFiles: ((path: string) => Promise<Uint8Array>) | undefined;
/** Asset files by path, read once per process (see PackagedAssets). */
const assetsRead = new Map<string, Promise<Uint8Array>>();

/**
 * pdfjs's `BinaryDataFactory`, reading the package's own font, CMap and WASM files once per
 * process instead of once per document. pdfjs asks for a standard font's program every time a
 * document names it (nearly every text PDF), and Node's default factory opens and reads the file
 * each time: in the extraction child, 0.6–0.8 ms of a ~6 ms one-page text PDF went to opening
 * files (profile of 800 corpus PDFs). The files are the package's own, read-only and bounded (a few
 * MB in all), so the cache is the same load-once idea as the module import. Each caller gets a
 * copy: pdfjs may hand the bytes on to its worker side.
 */
class PackagedAssets {
  readonly #urls: Readonly<Record<string, string | null>>;
  constructor(urls: { cMapUrl?: string | null; standardFontDataUrl?: string | null; wasmUrl?: string | null }) {
    this.#urls = { cMapUrl: urls.cMapUrl ?? null, standardFontDataUrl: urls.standardFontDataUrl ?? null, wasmUrl: urls.wasmUrl ?? null };
  }
  async fetch({ kind, filename }: { kind: string; filename: string }): Promise<Uint8Array> {
    const base = this.#urls[kind];
    if (!base || !assetFiles) throw new Error(`no ${kind} to read ${filename} from`);
    const path = base + filename;
    let read = assetsRead.get(path);
    if (!read) {
      read = assetFiles(path);
      assetsRead.set(path, read);
    read.catch(() => assetsRead.delete(path));
    }
    return new Uint8Array(await read);
  }
}

export async function extractPdfPages(bytes: Uint8Array, options: PdfExtractionOptions): Promise<DocumentResult<PageText[]>> {
  const { pdfjs, assets } = await loadPdfjs();
  const task = pdfjs.getDocument({
    // pdfjs takes ownership of (and may detach) the buffer it is given: hand it a copy.
    data: new Uint8Array(bytes),
    ...assets,
    cMapPacked: true,
    // Glyphs render as paths; pdfjs 6 no longer compiles anything with eval (CVE-2024-4367 class).
    disableFontFace: true,
    useSystemFonts: false,
    enableXfa: false,
    stopAtErrors: false,
    // pdfjs compares an image's declared Width × Height with this before it inflates or decodes
    // anything, and leaves the image out (the page then OCRs as blank): a 40,000 × 40,000 image is
    // 6.4 GB of RGBA, and a few kilobytes of flate stream can declare it.
    maxImageSize: options.maxImagePixels,
    verbosity: 0,
  });
  const abort = () => void task.destroy();
  options.signal.addEventListener('abort', abort, { once: true });
  let doc: Awaited<typeof task.promise> | undefined;
  try {
    try {
      doc = await task.promise;
    } catch (error) {
      return openFailure(error);
    }
    if (doc.numPages > options.maxPages) {
      return documentFailure('too_many_pages', `PDF has ${doc.numPages} pages; the limit is ${options.maxPages}`);
    }
    const pages: PageText[] = [];
    for (let index = 0; index < doc.numPages; index++) {
      if (options.signal.aborted) return documentFailure('extraction_timeout', 'PDF extraction was stopped by its deadline');
      const page = await doc.getPage(index + 1);
      try {
        const unit = page.getViewport({ scale: 1 });
        const size = { width: round2(unit.width), height: round2(unit.height), unit: 'pt' as const };
        const { text, origin } = await textLayerOf(pdfjs, page);
        if (countAlnum(text) >= MIN_TEXT_LAYER_ALNUM) {
          pages.push({ page_index: index, text, method: 'text_layer', size, origin });
          continue;
        }
        const png = await renderPage(page, options);
        if (!png.ok) return png;
        const ocr = await options.ocrPage(png.value.png, index, { size, pixelsPerUnit: png.value.scale });
        if (!ocr.ok) return ocr;
        pages.push(ocr.value);
      } finally {
        page.cleanup();
      }
    }
    return documentOk(pages);
  } catch (error) {
    if (options.signal.aborted) return documentFailure('extraction_timeout', 'PDF extraction was stopped by its deadline');
    return documentFailure('corrupt_document', `PDF could not be read: ${describe(error)}`);
  } finally {
    options.signal.removeEventListener('abort', abort);
    await task.destroy().catch(() => {});
  }
}

type PdfPage = Awaited<ReturnType<Awaited<ReturnType<PdfjsModule['getDocument']>['promise']>['getPage']>>;

/** The page's text items, moved into viewport space (y down, page rotation applied) and laid out. */
async function textLayerOf(pdfjs: PdfjsModule, page: PdfPage): Promise<{ text: string; origin: PageOrigin }> {
  const viewport = page.getViewport({ scale: 1 });
  const content = await page.getTextContent({ includeMarkedContent: false, disableNormalization: false });
  const fragments: PositionedFragment[] = [];
  for (const item of content.items) {
    if (!('str' in item) || item.str.trim() === '') continue;
    const [a, b, c, d, e, f] = pdfjs.Util.transform(viewport.transform, item.transform) as number[];
    const size = Math.hypot(c ?? 0, d ?? 0) || Math.hypot(a ?? 0, b ?? 0);
    if (!(size > 0)) continue;
    const x0 = e ?? 0;
    const baseline = f ?? 0;
    // item.width is in text space scaled by the item's own transform; the viewport scale is 1.
    const width = Math.abs(item.width) || size * 0.5 * item.str.length;
    // Ascent ≈ 0.8 em and descent ≈ 0.2 em for the fonts that matter here; only the band's
    // overlap with neighbouring lines is used, so the exact metrics do not matter. Evidence boxes
    // do need the glyphs' full extent: the font's own ascent/descent, at least 0.9/0.25 em, which
    // also covers accented capitals and the Times descender (0.217 em).
    const style = content.styles[item.fontName];
    const ascent = Math.max(finiteOr(style?.ascent, 0), 0.9);
    const descent = Math.max(-finiteOr(style?.descent, 0), 0.25);
    fragments.push({
      text: item.str,
      x0,
      x1: x0 + width,
      top: baseline - 0.8 * size,
      bottom: baseline + 0.2 * size,
      advances: advancesOf(item.str, style?.fontFamily),
      ink: { top: baseline - ascent * size, bottom: baseline + descent * size },
    });
  }
  const placed: PositionedFragment[] = [];
  const text = layoutFragments(fragments, undefined, placed);
  return { text, origin: boxOrigin(text, placed) };
}

const metricsByFamily = new Map<string, Font | null>();
/** Set by loadPdfjs: every text layer is read after it. */
let standardFonts: typeof import('@pdf-lib/standard-fonts') | undefined;

/**
 * Relative glyph widths of a text item, so an evidence box can enclose part of an item (a value
 * after its label in one "Gross pay: $2,450.00" item). pdfjs gives each item's total width but
 * not its glyphs'; the standard-14 metrics of the item's generic family (what pdfjs itself falls
 * back to) split it. Exact for the standard fonts; proportional elsewhere, and always summing to
 * the item's true width. Monospace and unknown families split evenly.
 */
function advancesOf(text: string, family: string | undefined): number[] | undefined {
  if (!standardFonts) throw new Error('advancesOf before loadPdfjs');
  const { Encodings, Font, FontNames } = standardFonts;
  const name = family === 'serif' ? FontNames.TimesRoman : family === 'sans-serif' ? FontNames.Helvetica : undefined;
  if (!name) return undefined;
  let font = metricsByFamily.get(name);
  if (font === undefined) {
    font = Font.load(name);
    metricsByFamily.set(name, font);
  }
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    let width: number | void = undefined;
    if (Encodings.WinAnsi.canEncodeUnicodeCodePoint(code)) width = font!.getWidthOfGlyph(Encodings.WinAnsi.encodeUnicodeCodePoint(code).name);
    out.push(typeof width === 'number' && width > 0 ? width : 500);
  }
  return out;
}

async function renderPage(page: PdfPage, options: PdfExtractionOptions): Promise<DocumentResult<{ png: Uint8Array; scale: number }>> {
  const { createCanvas } = await import('@napi-rs/canvas');
  const unit = page.getViewport({ scale: 1 });
  // Shrink the scale for oversized pages (a 200-inch poster page would be gigapixels at 144 dpi).
  const scale = Math.min(options.renderScale, Math.sqrt(options.maxRenderPixels / Math.max(1, unit.width * unit.height)));
  if (!(scale > 0.2)) return documentFailure('too_large', 'PDF page is too large to render for OCR');
  const viewport = page.getViewport({ scale });
  const canvas = createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  await page.render({
    // @napi-rs/canvas is the Node canvas pdfjs itself uses; the DOM type is all its typings know.
    canvas: canvas as never,
    viewport,
    background: '#ffffff',
  }).promise;
  return documentOk({ png: new Uint8Array(await canvas.encode('png')), scale });
}

function openFailure(error: unknown): DocumentResult<never> {
  const name = error instanceof Error ? error.name : '';
  if (name === 'PasswordException') return documentFailure('encrypted_pdf', 'PDF is password protected');
  return documentFailure('corrupt_document', `PDF could not be opened: ${describe(error)}`);
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 200) : 'unknown error';
}

function finiteOr(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

function countAlnum(text: string): number {
  let count = 0;
  for (const ch of text) if (/[\p{L}\p{N}]/u.test(ch)) count++;
  return count;
}

/**
 * Renders every page of a PDF to PNG or JPEG exactly as the OCR path does. Tooling only (the
 * evaluation corpus turns generated PDFs into "scans", the benchmark makes an A4 page image);
 * it throws on a bad PDF instead of returning a reason code.
 */
export async function renderPdfPages(
  bytes: Uint8Array,
  options: { scale: number; format: 'png' | 'jpeg'; quality?: number },
): Promise<Uint8Array[]> {
  const { pdfjs, assets } = await loadPdfjs();
  const { loadImage, createCanvas } = await import('@napi-rs/canvas');
  const task = pdfjs.getDocument({ data: new Uint8Array(bytes), ...assets, disableFontFace: true, verbosity: 0 });
  try {
    const doc = await task.promise;
    const images: Uint8Array[] = [];
    const never = new AbortController().signal;
    for (let index = 0; index < doc.numPages; index++) {
      const page = await doc.getPage(index + 1);
      const png = await renderPage(page, { maxPages: Infinity, maxRenderPixels: 64e6, renderScale: options.scale, maxImagePixels: -1, signal: never, ocrPage: async () => { throw new Error('unused'); } });
      if (!png.ok) throw new Error(png.message);
      if (options.format === 'png') {
        images.push(png.value.png);
      } else {
        const image = await loadImage(Buffer.from(png.value.png));
        const canvas = createCanvas(image.width, image.height);
        canvas.getContext('2d').drawImage(image, 0, 0);
        images.push(new Uint8Array(await canvas.encode('jpeg', options.quality ?? 85)));
      }
    }
    return images;
  } finally {
    await task.destroy().catch(() => {});
  }
}

/** One PDF page as an image for people to look at, with the page's own size in points (evidence boxes are in points). */
export interface RenderedPdfPage {
  image: Uint8Array;
  contentType: 'image/jpeg' | 'image/png';
  widthPx: number;
  heightPx: number;
  pageWidth: number;
  pageHeight: number;
}

/**
 * Renders one page (0-based) of a PDF for the operator console. Returns undefined when the page
 * does not exist or the PDF cannot be read (the console then shows the page text alone).
 * JPEG, not PNG: for an A4 text page at scale 2 the PNG was 468 kB and its encoding took most of
 * the ~600 ms; JPEG at quality 85 keeps text sharp at a fraction of both (bench/console.ts).
 */
export async function renderPdfPage(bytes: Uint8Array, pageIndex: number, options: PdfPageImageOptions): Promise<RenderedPdfPage | undefined> {
  return (await renderPdfPagesAt(bytes, [pageIndex], options))[0];
}

export interface PdfPageImageOptions {
  scale: number;
  maxRenderPixels: number;
  quality?: number;
}

/**
 * Renders the given pages (0-based) of a PDF, opening it once: what the document job draws ahead
 * of time for the console, in an extraction child. Pages that do not exist or fail to draw are
 * left out; an unreadable PDF gives none.
 */
export async function renderPdfPagesAt(bytes: Uint8Array, pageIndexes: readonly number[], options: PdfPageImageOptions): Promise<(RenderedPdfPage & { pageIndex: number })[]> {
  const { pdfjs, assets } = await loadPdfjs();
  const { createCanvas } = await import('@napi-rs/canvas');
  const task = pdfjs.getDocument({ data: new Uint8Array(bytes), ...assets, cMapPacked: true, disableFontFace: true, useSystemFonts: false, enableXfa: false, verbosity: 0 });
  const rendered: (RenderedPdfPage & { pageIndex: number })[] = [];
  try {
    const doc = await task.promise;
    for (const pageIndex of pageIndexes) {
      if (!Number.isInteger(pageIndex) || pageIndex < 0 || pageIndex >= doc.numPages) continue;
      try {
        const page = await doc.getPage(pageIndex + 1);
        const unit = page.getViewport({ scale: 1 });
        const scale = Math.min(options.scale, Math.sqrt(options.maxRenderPixels / Math.max(1, unit.width * unit.height)));
        if (!(scale > 0.05)) continue;
        const viewport = page.getViewport({ scale });
        const canvas = createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
        const context = canvas.getContext('2d');
        context.fillStyle = '#ffffff';
        context.fillRect(0, 0, canvas.width, canvas.height);
        await page.render({ canvas: canvas as never, viewport, background: '#ffffff' }).promise;
        const image = new Uint8Array(await canvas.encode('jpeg', options.quality ?? 85));
        rendered.push({ pageIndex, image, contentType: 'image/jpeg', widthPx: canvas.width, heightPx: canvas.height, pageWidth: unit.width, pageHeight: unit.height });
      } catch {
        // This page cannot be drawn: the console renders it on demand or shows its text alone.
      }
    }
    return rendered;
  } catch {
    return rendered;
  } finally {
    await task.destroy().catch(() => {});
  }
}

/**
 * Whether a PDF needs a password to open, so the applicant app can refuse it at upload instead of
 * failing later in the worker. Only PDFs that carry an `/Encrypt` dictionary are opened with pdfjs
 * (opening reads the trailer, not the pages); PDFs encrypted with an empty user password open and
 * pass.
 */
export async function pdfNeedsPassword(bytes: Uint8Array): Promise<boolean> {
  if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf('/Encrypt') < 0) return false;
  const { pdfjs, assets } = await loadPdfjs();
  const task = pdfjs.getDocument({ data: new Uint8Array(bytes), ...assets, disableFontFace: true, useSystemFonts: false, enableXfa: false, verbosity: 0 });
  try {
    await task.promise;
    return false;
  } catch (error) {
    return error instanceof Error && error.name === 'PasswordException';
  } finally {
    await task.destroy();
  }
}
