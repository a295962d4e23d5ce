/** The OCR port and its vocabulary: words, their letters, the languages a reading is done in. */

/** A letter's own box on the page (its ink), as OCR reports it. */
export interface LetterBox {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/** A letter as OCR read it, with its box. */
export interface Letter extends LetterBox {
  readonly text: string;
}

/** One recognised word, positioned in image pixels (y grows downwards). */
export interface OcrWord {
  readonly text: string;
  /** 0..100 as the engine reports it. */
  readonly confidence: number;
  readonly x0: number;
  readonly x1: number;
  /**
   * The vertical band of the word's text line at this word (ascender to descender), not the
   * word's own box: a word's box depends on its letters ("a" vs "Jy") and grows around any speck
   * touching it, which misplaces words into the neighbouring line.
   */
  readonly top: number;
  readonly bottom: number;
  /**
   * The word's letters, each with its own box, when the engine reports them and there is one per
   * character of `text`: where a lost mark ("ø", "é") is looked for in the pixels.
   */
  readonly letters?: readonly Letter[];
}

export interface OcrImageResult {
  readonly words: readonly OcrWord[];
}

/**
 * The OCR port. Implementations keep their expensive state (a WASM engine and ~15 MB of model)
 * alive across pages and documents; `close()` releases it, and a later `recognize` is allowed to
 * start it again, which is also how a stuck recognition is abandoned (see the signal).
 */
export interface OcrEngine {
  /**
   * Recognises one PNG, JPEG or binary PPM/PGM image (pages and crops this service changed are
   * handed over as PPM, or PGM when grey: raster.ts), in `languages` (Tesseract codes, the first read first) or
   * the engine's own default. When `signal` aborts while this image is being recognised
   * the engine is torn down (there is no other way to stop a running WASM call) and the promise
   * rejects; later calls start a fresh engine.
   */
  recognize(image: Uint8Array, options?: { signal?: AbortSignal; languages?: readonly string[] }): Promise<OcrImageResult>;
  /**
   * How many recognitions the engine runs at once, each on a thread of its own: callers with
   * independent images (the second readings of a page's words) may have this many in flight.
   * Absent: one at a time.
   */
  readonly readsAtOnce?: number;
  /**
   * Recognises the parts of one page (page-parts.ts) at once, each on an engine thread of its own
   * and each as `recognize` would; the results in the parts' order. Optional: an engine without it
   * reads every page whole.
   */
  recognizeParts?(images: readonly Uint8Array[], options?: { signal?: AbortSignal; languages?: readonly string[] }): Promise<OcrImageResult[]>;
  /**
   * Recognises an image holding one line of text (Tesseract page segmentation 7), for a second
   * reading of words the page reading was unsure of: in one `language` alone, or in the page's
   * `languages` as `recognize` reads them. Optional: without it pages keep their first reading.
   */
  recognizeLine?(image: Uint8Array, options?: { signal?: AbortSignal; language?: string; languages?: readonly string[] }): Promise<OcrImageResult>;
  /**
   * Languages `recognizeLine` can read in one at a time (`options.language`), for capitals whose
   * mark the page reading lost: each language reads its own marked capitals best ("KÖHLER" by
   * German, "BRANDÃO" by Portuguese, "AMÉLIE" by French). Empty or absent: no such reading.
   */
  readonly markLanguages?: readonly string[];
  /**
   * How far the page in the image is turned, from Tesseract's orientation and script detection:
   * `degrees` (0, 90, 180, 270) is the clockwise turn that makes it upright. Optional: an engine
   * without it leaves pages as they come.
   */
  detectOrientation?(image: Uint8Array, options?: { signal?: AbortSignal }): Promise<OrientationResult | undefined>;
  close(): Promise<void>;
}

export interface OrientationResult {
  readonly degrees: 0 | 90 | 180 | 270;
  /** Tesseract's orientation confidence (not a probability; ≥ 2 is where it starts being right). */
  readonly confidence: number;
}

/**
 * The languages one document is read in, chosen from its case (languages.ts): `page` reads whole
 * pages, the first language first; `marks` reads again, one language at a time, the words whose
 * marks the page reading lost.
 */
export interface OcrLanguages {
  readonly page: readonly string[];
  readonly marks: readonly string[];
}

/** The engine as one document sees it: its pages read in `languages.page`, its marks in `languages.marks`. */
export function readingIn(engine: OcrEngine, languages: OcrLanguages): OcrEngine {
  return {
    recognize: (image, options) => engine.recognize(image, { ...options, languages: languages.page }),
    ...(engine.recognizeParts ? { recognizeParts: (images, options) => engine.recognizeParts!(images, { ...options, languages: languages.page }) } : {}),
    ...(engine.recognizeLine ? { recognizeLine: (image, options) => engine.recognizeLine!(image, options?.language === undefined ? { ...options, languages: languages.page } : options) } : {}),
    markLanguages: languages.marks,
    ...(engine.readsAtOnce ? { readsAtOnce: engine.readsAtOnce } : {}),
    ...(engine.detectOrientation ? { detectOrientation: engine.detectOrientation.bind(engine) } : {}),
    // The engine is shared across documents: its owner closes it, not one document's view of it.
    close: async () => {},
  };
}
