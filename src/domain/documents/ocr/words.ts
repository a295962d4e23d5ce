import { layoutFragments, OCR_COLUMN_GAP, type PositionedFragment } from '../canonical-text.ts';
import { boxOrigin } from '../origin.ts';
import { documentFailure, documentOk, type DocumentResult, type PageSize, type PageText } from '../types.ts';
import type { OcrEngine, OcrImageResult } from './engine.ts';
import { pixmapOf, type Raster } from './raster.ts';
import { joinParts, planParts, rowsOf } from './page-parts.ts';
import { readAgain } from './second-readings.ts';

/**
 * From an image to its page text by way of words: the engine reads the words, the unsure ones and
 * those that lost their marks are read again (second-readings.ts), and the words are laid out as
 * the page's canonical text with a box for every character, on the page as it was uploaded.
 */

/** Words whose confidence is below this are noise (speckles, rules read as "|" or "—"). */
const MIN_WORD_CONFIDENCE = 20;

/**
 * Where the OCRed image sits on its page: the page's size in its own unit, and how many image
 * pixels make one unit (2 for a PDF page rendered at scale 2, below 1 for a downscaled photo).
 */
export interface OcrFrame {
  readonly size: PageSize;
  readonly pixelsPerUnit: number;
  /** Degrees (clockwise) the image was turned back by before OCR to undo skew; boxes are turned forward again. */
  readonly deskewedBy?: number;
  /** Quarter turns (clockwise) the image was given before OCR to set a sideways or upside-down page upright. */
  readonly quarterTurns?: 0 | 1 | 2 | 3;
}

/** Runs OCR on one image and builds its canonical page text from the word boxes. */
export async function ocrImageToPage(
  engine: OcrEngine,
  image: Raster,
  pageIndex: number,
  signal: AbortSignal,
  frame: OcrFrame,
): Promise<DocumentResult<PageText>> {
  let result: OcrImageResult;
  try {
    result = await readWords(engine, image, signal);
  } catch (error) {
    if (signal.aborted) return documentFailure('extraction_timeout', 'OCR was stopped by the extraction deadline');
    const message = error instanceof Error ? error.message : String(error);
    // Tesseract reports undecodable images through the same channel as engine failures.
    if (/attempting to read image|pixRead|cannot be read/i.test(message)) return documentFailure('corrupt_document', `image could not be decoded: ${message.slice(0, 200)}`);
    return documentFailure('ocr_failed', `OCR engine failed: ${message.slice(0, 200)}`);
  }
  let words = result.words.filter((w) => w.confidence >= MIN_WORD_CONFIDENCE || /[\p{L}\p{N}]{2,}/u.test(w.text));
  if (engine.recognizeLine) {
    try {
      words = await readAgain(engine, image, words, signal);
    } catch {
      if (signal.aborted) return documentFailure('extraction_timeout', 'OCR was stopped by the extraction deadline');
      // The second readings only ever improve on the first: keep the first when they fail.
    }
  }
  const fragments: PositionedFragment[] = words.map((w) => ({ text: w.text, x0: w.x0, x1: w.x1, top: w.top, bottom: w.bottom }));
  const placed: PositionedFragment[] = [];
  const text = layoutFragments(fragments, OCR_COLUMN_GAP, placed);
  const confidence = words.length === 0 ? 0 : words.reduce((sum, w) => sum + w.confidence, 0) / words.length;
  return documentOk({ page_index: pageIndex, text, method: 'ocr', ocr_confidence: Math.round(confidence * 10) / 10, size: frame.size, origin: boxOrigin(text, placed, frame.pixelsPerUnit, toUploadedPage(frame)) });
}

/**
 * The page reading: in two parts read at once where the engine can and the page has the text to
 * make it worth it (page-parts.ts), else whole.
 */
async function readWords(engine: OcrEngine, image: Raster, signal: AbortSignal): Promise<OcrImageResult> {
  const plan = engine.recognizeParts ? planParts(image) : undefined;
  if (plan === undefined) return engine.recognize(pixmapOf(image), { signal });
  const parts = [rowsOf(image, 0, plan.topEnd), rowsOf(image, plan.bottomStart, image.height)];
  const [top, bottom] = await engine.recognizeParts!(parts.map(pixmapOf), { signal });
  return { words: joinParts(plan, [top!.words, bottom!.words]) };
}

/**
 * Maps points of the OCRed image (in page units) back onto the page as uploaded: first undo the
 * deskew (a rotation about the turned image's centre), then the quarter turns.
 */
function toUploadedPage(frame: OcrFrame): ((x: number, y: number) => readonly [number, number]) | undefined {
  const turns = frame.quarterTurns ?? 0;
  if (!frame.deskewedBy && turns === 0) return undefined;
  const { width: W, height: H } = frame.size;
  const turnedWidth = turns % 2 === 0 ? W : H;
  const turnedHeight = turns % 2 === 0 ? H : W;
  const t = ((frame.deskewedBy ?? 0) * Math.PI) / 180;
  const cx = turnedWidth / 2;
  const cy = turnedHeight / 2;
  const cos = Math.cos(t);
  const sin = Math.sin(t);
  return (x, y) => {
    const u = cx + (x - cx) * cos - (y - cy) * sin;
    const v = cy + (x - cx) * sin + (y - cy) * cos;
    // The image was turned clockwise by `turns` quarters: page (px, py) went to
    // 1: (H − py, px), 2: (W − px, H − py), 3: (py, W − px).
    switch (turns) {
      case 1: return [v, H - u];
      case 2: return [W - u, H - v];
      case 3: return [W - v, u];
      default: return [u, v];
    }
  };
}
