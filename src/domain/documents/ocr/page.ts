import type { DocumentResult, PageText } from '../types.ts';
import type { OcrEngine } from './engine.ts';
import { pixmapOf, rotateRaster, turnRaster, type Raster } from './raster.ts';
import { estimateSkew } from './skew.ts';
import { removeSpecks } from './specks.ts';
import { ocrImageToPage, type OcrFrame } from './words.ts';

/**
 * A page read this badly may be sideways or upside down: mean word confidence below this, or
 * fewer words with two letters or digits than MIN_READABLE_WORDS. Measured on corpus scans (PNG
 * and phone JPEG): upright pages read at a mean confidence of 90–95 with 33–43 such words; turned
 * a quarter either way they gave 0–4 words, upside down 38–48 confidence.
 */
const MIN_UPRIGHT_CONFIDENCE = 70;
const MIN_READABLE_WORDS = 8;
/** Below this Tesseract's orientation guess is no better than chance on our pages. */
const MIN_ORIENTATION_CONFIDENCE = 1.5;

/**
 * OCR of one page image (a PNG/JPEG upload or a rendered image-only PDF page, decoded once), with
 * the corrections a photo or scan needs first: lone specks are removed (specks.ts) and the skew is
 * undone (0.3–3°, skew.ts), and when the page reads badly its orientation is detected and a page
 * turned by a quarter, a half or three quarters is set upright and read again. Orientation detection runs only
 * then (0.2–0.45 s of CPU per page), so upright pages pay nothing for it; a turned page costs
 * 1.0–1.7 s of CPU in all, against 0.5–0.65 s upright. Boxes are mapped back onto the image as given.
 */
export async function ocrPage(
  engine: OcrEngine,
  image: Raster,
  pageIndex: number,
  signal: AbortSignal,
  frame: Pick<OcrFrame, 'size' | 'pixelsPerUnit'>,
): Promise<DocumentResult<PageText>> {
  const first = await readStraightened(engine, image, pageIndex, signal, frame, 0);
  if (!first.ok || !engine.detectOrientation || looksUpright(first.value)) return first;
  let orientation;
  try {
    orientation = await engine.detectOrientation(pixmapOf(image), { signal });
  } catch {
    // Orientation is a second chance, not a requirement: keep the first reading.
    return first;
  }
  if (!orientation || orientation.degrees === 0 || orientation.confidence < MIN_ORIENTATION_CONFIDENCE) return first;
  const turns = (orientation.degrees / 90) as 1 | 2 | 3;
  const turned = await turnRaster(image, turns);
  const second = await readStraightened(engine, turned, pageIndex, signal, frame, turns);
  if (!second.ok) return signal.aborted ? second : first;
  return score(second.value) > score(first.value) ? second : first;
}

async function readStraightened(
  engine: OcrEngine,
  image: Raster,
  pageIndex: number,
  signal: AbortSignal,
  frame: Pick<OcrFrame, 'size' | 'pixelsPerUnit'>,
  quarterTurns: 0 | 1 | 2 | 3,
): Promise<DocumentResult<PageText>> {
  // Specks go first: they would also weigh in the skew's projection profile. Pages are seldom
  // square to the scanner or the lens: undo a skew before OCR (a rotation about the centre, which
  // commutes with any scaling done before).
  const { raster: clean } = removeSpecks(image);
  const skew = await estimateSkew(clean);
  const straight = skew === 0 ? clean : await rotateRaster(clean, skew);
  return ocrImageToPage(engine, straight, pageIndex, signal, { ...frame, deskewedBy: skew, quarterTurns });
}

function readableWords(page: PageText): number {
  return page.text.split(/\s+/).filter((w) => /[\p{L}\p{N}]{2,}/u.test(w)).length;
}

function looksUpright(page: PageText): boolean {
  return (page.ocr_confidence ?? 0) >= MIN_UPRIGHT_CONFIDENCE && readableWords(page) >= MIN_READABLE_WORDS;
}

/** Which of two readings of a page to keep: confident words count, as in Tesseract's own choice of orientation. */
function score(page: PageText): number {
  return readableWords(page) * (page.ocr_confidence ?? 0);
}
