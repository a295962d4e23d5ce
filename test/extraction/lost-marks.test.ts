import { createCanvas } from '@napi-rs/canvas';
import { afterAll, describe, expect, it } from 'vitest';
import { corpusScan } from '../../scripts/corpus/generate.ts';
import { createTesseractOcr, extractPages, sniffDocumentType } from '../../src/domain/documents/index.ts';
import type { OcrEngine, OcrWord } from '../../src/domain/documents/ocr/engine.ts';
import { hasLostCapitalMark, hasSlash, isUnmarkedCapitals, type WordBox } from '../../src/domain/documents/ocr/lost-marks.ts';
import { decodeRaster, pixelArea, rasterOfPixels } from '../../src/domain/documents/ocr/raster.ts';
import { imageSeenByOcr } from './helpers.ts';
import { rereadScale } from '../../src/domain/documents/ocr/second-readings.ts';
import { ocrImageToPage } from '../../src/domain/documents/ocr/words.ts';

/** A canvas of scanned paper to draw on. */
function paper(width: number, height: number) {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = 'rgb(244,244,240)';
  context.fillRect(0, 0, width, height);
  context.fillStyle = '#1a1a1a';
  return { canvas, context };
}

/** A letter as an outlined box, 2 px strokes, from `top` down to the baseline. */
function outlinedLetter(context: ReturnType<typeof paper>['context'], left: number, top: number, width: number, baseline: number): void {
  context.fillRect(left, top, width, 2);
  context.fillRect(left, baseline - 2, width, 2);
  context.fillRect(left, top, 2, baseline - top);
  context.fillRect(left + width - 2, top, 2, baseline - top);
}

/** The pixels of a whole canvas as the area the detectors read. */
function pixelsOf(canvas: ReturnType<typeof paper>['canvas']) {
  const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
  return pixelArea(rasterOfPixels(canvas.width, canvas.height, data), { left: 0, top: 0, width: canvas.width, height: canvas.height });
}

/**
 * One line of capitals at scan size (a 14 px cap height, as on a 144 dpi scan), each letter drawn
 * as an outlined box and each mark as a small block where a typeface puts it: above the letter for
 * acute, grave, circumflex, tilde and ring, two dots for a diaeresis, below it for a cedilla.
 * Shapes, not a font, so the test reads the same on every machine.
 */
async function line(words: readonly string[], options: { ruleAbove?: boolean } = {}) {
  const { canvas, context } = paper(640, 90);
  const baseline = 55;
  const capTop = baseline - 14;
  // A rule close above the line, as a table border: ink above every letter, not a mark.
  if (options.ruleAbove) context.fillRect(10, 30, 620, 2);
  const boxes: WordBox[] = [];
  let x = 20;
  for (const word of words) {
    const start = x;
    for (const character of word) {
      const [, ...marks] = [...character.normalize('NFD')];
      outlinedLetter(context, x, capTop, 10, baseline);
      for (const mark of marks) {
        if (mark === '\u0308') { context.fillRect(x + 2, capTop - 6, 2, 2); context.fillRect(x + 6, capTop - 6, 2, 2); }
        else if (mark === '\u0327') context.fillRect(x + 4, baseline + 1, 3, 4);
        else context.fillRect(x + 3, capTop - 6, 4, 3);
      }
      x += 13;
    }
    boxes.push({ text: word.normalize('NFD').replace(/\p{M}/gu, ''), x0: start, x1: x - 3, top: baseline - 20, bottom: baseline + 5 });
    x += 12;
  }
  return { pixels: pixelsOf(canvas), boxes, image: await decodeRaster(new Uint8Array(await canvas.encode('png'))) };
}

describe('capitals whose mark the reading lost', () => {
  it('sees the mark above a capital or under it, and nothing on plain capitals', async () => {
    const { pixels, boxes } = await line(['AMÉLIE', 'GIRARD', 'KÖHLER', 'CONCEIÇÃO', 'MAREIKE', 'WEISS']);
    expect(boxes.map((box) => [box.text, hasLostCapitalMark(pixels, box)])).toEqual([
      ['AMELIE', true],
      ['GIRARD', false],
      ['KOHLER', true],
      ['CONCEICAO', true],
      ['MAREIKE', false],
      ['WEISS', false],
    ]);
  });

  it('does not take a rule above the line, or the line above, for a mark', async () => {
    const { pixels, boxes } = await line(['STATEMENT', 'HOLDER'], { ruleAbove: true });
    expect(boxes.map((box) => hasLostCapitalMark(pixels, box))).toEqual([false, false]);
  });

  it('looks only at words read as capitals without marks', () => {
    expect(['AMELIE', 'KOHLER,', 'AMÉLIE', 'Köhler', 'Amelie', 'A', 'JØRGENSEN', 'DE89'].map(isUnmarkedCapitals)).toEqual([true, true, false, false, false, false, false, false]);
  });
});

describe('an o whose slash the reading lost', () => {
  it('sees the slash of "Ø" and "ø" through the middle of the letter, and none in "O" or "o"', async () => {
    const { canvas, context } = paper(400, 60);
    // Grey as a scanner leaves thin strokes: the slash must be seen in it too. A capital and a
    // small o, each drawn as a ring, the slashed ones crossed from bottom left to top right.
    context.strokeStyle = '#555';
    context.lineWidth = 2.5;
    const letters = [
      { letter: 'Ø', slash: true, x: 20, r: 8 },
      { letter: 'O', slash: false, x: 60, r: 8 },
      { letter: 'ø', slash: true, x: 100, r: 5 },
      { letter: 'o', slash: false, x: 130, r: 5 },
    ];
    const boxes = letters.map(({ letter, slash, x, r }) => {
      const cy = 40 - r;
      context.beginPath();
      context.ellipse(x + r, cy, r, r * 1.1, 0, 0, 2 * Math.PI);
      context.stroke();
      if (slash) {
        context.beginPath();
        context.moveTo(x - 1, cy + r * 1.3);
        context.lineTo(x + 2 * r + 1, cy - r * 1.3);
        context.stroke();
      }
      return { letter, box: { x0: x - 1, x1: x + 2 * r + 1, y0: cy - r * 1.1 - 1, y1: cy + r * 1.1 + 1 } };
    });
    const area = pixelsOf(canvas);
    expect(boxes.map(({ letter, box }) => [letter, hasSlash(area, box)])).toEqual([['Ø', true], ['O', false], ['ø', true], ['o', false]]);
  });
});

describe('reading lost marks again, one language at a time', () => {
  const word = (text: string, confidence: number, box: WordBox): OcrWord => ({ text, confidence, x0: box.x0, x1: box.x1, top: box.top, bottom: box.bottom });

  it('keeps the surest reading that is the same word with marks, and leaves other words alone', async () => {
    const { boxes, image } = await line(['AMÉLIE', 'GIRARD']);
    const asked: string[] = [];
    const readings: Record<string, OcrWord[]> = {
      // The right mark from French; Portuguese less sure; German keeps the page reading; Danish
      // changes a letter, which a mark reading may never do.
      fra: [word('AMÉLIE', 92, boxes[0]!)],
      por: [word('AMÊLIE', 85, boxes[0]!)],
      deu: [word('AMELIE', 96, boxes[0]!)],
      dan: [word('AMÉLIA', 97, boxes[0]!)],
    };
    const ocr: OcrEngine = {
      markLanguages: ['fra', 'deu', 'por', 'dan'],
      async recognize() { return { words: [word('AMELIE', 96, boxes[0]!), word('GIRARD', 96, boxes[1]!)] }; },
      async recognizeLine(_image, options) {
        asked.push(options?.language ?? 'page');
        return { words: options?.language ? readings[options.language]! : [] };
      },
      async close() {},
    };
    const frame = { size: { width: 640, height: 90, unit: 'px' as const }, pixelsPerUnit: 1 };
    const page = await ocrImageToPage(ocr, image, 0, new AbortController().signal, frame);
    expect(page.ok && page.value.text).toBe('AMÉLIE GIRARD');
    // Only the word with a mark on the page was read again, once per language.
    expect(asked).toEqual(['fra', 'deu', 'por', 'dan']);
  });

  it('adds a mark to a word in small letters only where the page shows ink above the letter', async () => {
    // "Lefèvre" is drawn with its grave accent, "Corporation" without any; both were read unsure
    // and without marks, and a language reads each with a mark. Letters are outlined boxes as tall
    // as their kind (x-height, ascender, capital), marks small blocks above.
    const { canvas, context } = paper(640, 90);
    const baseline = 55;
    const read = (drawn: string, asRead: string, x: number): OcrWord => {
      const letters = [...drawn].map((character, k) => {
        const base = character.normalize('NFD')[0]!;
        const top = /[A-Zbdfhklt]/.test(base) ? baseline - 14 : baseline - 10;
        const left = x + k * 10;
        outlinedLetter(context, left, top, 8, baseline);
        if (base === 'i') context.fillRect(left + 3, baseline - 14, 2, 2);
        if (character !== base) context.fillRect(left + 2, top - 6, 4, 3);
        // OCR's box of a letter read without its mark is the letter's body alone.
        return { text: [...asRead][k]!, x0: left, x1: left + 8, y0: top, y1: baseline };
      });
      return { text: asRead, confidence: 88, x0: x, x1: x + 10 * letters.length - 2, top: baseline - 20, bottom: baseline + 5, letters };
    };
    const words = [read('Lefèvre', 'Lefevre', 20), read('Corporation', 'Corporation', 200)];
    const image = await decodeRaster(new Uint8Array(await canvas.encode('png')));
    // Each word is read in French, then Irish: "Lefèvre" both times, "Córporation" both times.
    const answers = ['Lefèvre', 'Lefèvre', 'Córporation', 'Córporation'].map((text, k) => ({ ...words[k < 2 ? 0 : 1]!, text, confidence: 95 }));
    const ocr: OcrEngine = {
      markLanguages: ['fra', 'gle'],
      async recognize() { return { words }; },
      async recognizeLine(_image, options) { return { words: options?.language ? [answers.shift()!] : [] }; },
      async close() {},
    };
    const frame = { size: { width: 640, height: 90, unit: 'px' as const }, pixelsPerUnit: 1 };
    const page = await ocrImageToPage(ocr, image, 0, new AbortController().signal, frame);
    expect(page.ok && page.value.text).toBe('Lefèvre\tCorporation');
    expect(answers).toEqual([]);
  });

  it('keeps the page reading when no language is sure enough of a marked word', async () => {
    const { boxes, image } = await line(['KÖHLER']);
    const ocr: OcrEngine = {
      markLanguages: ['fra', 'deu'],
      async recognize() { return { words: [word('KOHLER', 96, boxes[0]!)] }; },
      async recognizeLine(_image, options) { return { words: options?.language === 'fra' ? [word('KÔHLER', 8, boxes[0]!)] : [word('KÖHLER', 85, boxes[0]!)] }; },
      async close() {},
    };
    const frame = { size: { width: 640, height: 90, unit: 'px' as const }, pixelsPerUnit: 1 };
    const page = await ocrImageToPage(ocr, image, 0, new AbortController().signal, frame);
    expect(page.ok && page.value.text).toBe('KOHLER');
  });
});

describe('the shape and place of marks on scans (issue 28, scans)', () => {
  /** Words drawn as outlined letters (capitals and b, d, h, k, l as tall as each other), each
   * marked letter with a small block above it, and read as `asRead` with one box per letter. */
  async function drawn(words: Array<{ drawn: string; asRead: string; x: number; confidence: number }>) {
    const { canvas, context } = paper(640, 90);
    const baseline = 55;
    const read = words.map(({ drawn: text, asRead, x, confidence }): OcrWord => {
      const letters = [...text].map((character, k) => {
        const base = character.normalize('NFD')[0]!;
        const top = /[A-Zbdhkl]/.test(base) ? baseline - 14 : baseline - 10;
        const left = x + k * 10;
        outlinedLetter(context, left, top, 8, baseline);
        // A diaeresis is two dots; every other mark one stroke.
        if (character.normalize('NFD').includes('\u0308')) { context.fillRect(left + 1, top - 6, 2, 2); context.fillRect(left + 5, top - 6, 2, 2); }
        else if (character !== base) context.fillRect(left + 2, top - 6, 4, 3);
        return { text: [...asRead][k]!, x0: left, x1: left + 8, y0: top, y1: baseline };
      });
      return { text: asRead, confidence, x0: x, x1: x + 10 * letters.length - 2, top: baseline - 20, bottom: baseline + 5, letters };
    });
    return { words: read, image: await decodeRaster(new Uint8Array(await canvas.encode('png'))) };
  }
  const frame = { size: { width: 640, height: 90, unit: 'px' as const }, pixelsPerUnit: 1 };

  it('crops a mark reading half a band above the word, and takes no reading whose mark has the wrong shape', async () => {
    const { words, image } = await drawn([{ drawn: 'MÜLLER', asRead: 'MULLER', x: 20, confidence: 96 }]);
    const asked: string[] = [];
    const heights: number[] = [];
    // Irish is surer, but of an acute: the page shows two dots.
    const readings: Record<string, string> = { deu: 'MÜLLER', gle: 'MÚLLER' };
    const ocr: OcrEngine = {
      markLanguages: ['deu', 'gle'],
      async recognize() { return { words }; },
      async recognizeLine(image, options) {
        asked.push(options?.language ?? 'page');
        heights.push((await imageSeenByOcr(image)).height);
        return { words: [{ ...words[0]!, text: readings[options!.language!]!, confidence: options?.language === 'deu' ? 93 : 95 }] };
      },
      async close() {},
    };
    const page = await ocrImageToPage(ocr, image, 0, new AbortController().signal, frame);
    expect(page.ok && page.value.text).toBe('MÜLLER');
    expect(asked).toEqual(['deu', 'gle']);
    // The crop reaches half a band above the word's band (25 px), where a capital's mark stands,
    // not the 0.2 of an unsure word's crop; 0.2 below.
    expect(heights[0]).toBe(Math.round(25 * (1 + 0.5 + 0.2) * rereadScale(25)));
  });

  it('reads again a word whose mark has another shape on the page, and takes the reading with the right one', async () => {
    // Read "Linkôping" and "SEÄN"; the page shows two dots over the o and one stroke over the A.
    const { words, image } = await drawn([{ drawn: 'Linköping', asRead: 'Linkôping', x: 20, confidence: 96 }, { drawn: 'SEÁN', asRead: 'SEÄN', x: 200, confidence: 96 }, { drawn: 'Köln', asRead: 'Köln', x: 320, confidence: 96 }]);
    const readings: Record<string, Record<string, string>> = { Linkôping: { deu: 'Linköping', gle: 'Linkóping' }, SEÄN: { deu: 'SEÄN', gle: 'SEÁN' } };
    const asked: string[] = [];
    const ocr: OcrEngine = {
      markLanguages: ['deu', 'gle'],
      async recognize() { return { words }; },
      async recognizeLine(image, options) {
        const crop = await imageSeenByOcr(image);
        const word = crop.width > 250 ? words[0]! : words[1]!;
        asked.push(`${word.text}:${options?.language}`);
        return { words: [{ ...word, text: readings[word.text]![options!.language!]!, confidence: 92 }] };
      },
      async close() {},
    };
    const page = await ocrImageToPage(ocr, image, 0, new AbortController().signal, frame);
    expect(page.ok && page.value.text).toBe('Linköping\tSEÁN\tKöln');
    // "Köln", whose dots are on the page, was not read again.
    expect(asked).toEqual(['Linkôping:deu', 'Linkôping:gle', 'SEÄN:deu', 'SEÄN:gle']);
  });

  it('keeps a mark the page reading had when a surer second reading drops it and the page shows it', async () => {
    // Both read unsure (90) with a mark on their e; only "Lefèvre" has ink above it.
    const { words, image } = await drawn([{ drawn: 'Lefèvre', asRead: 'Lefèvre', x: 20, confidence: 90 }, { drawn: 'Vernon', asRead: 'Vérnon', x: 200, confidence: 90 }]);
    const again = ['Lefevre', 'Vernon'];
    const ocr: OcrEngine = {
      markLanguages: [],
      async recognize() { return { words }; },
      // The enlarged reading, in crop pixels: each word without its mark, and surer.
      async recognizeLine(image) {
        const crop = await imageSeenByOcr(image);
        return { words: [{ text: again.shift()!, confidence: 96, x0: 5, x1: crop.width - 5, top: 0, bottom: crop.height }] };
      },
      async close() {},
    };
    const page = await ocrImageToPage(ocr, image, 0, new AbortController().signal, frame);
    expect(page.ok && page.value.text).toBe('Lefèvre\tVernon');
    expect(again).toEqual([]);
  });
});

describe('lost marks with the real engine', () => {
  const ocr = createTesseractOcr();
  afterAll(() => ocr.close());
  const pageText = async (seed: number, index: number) => {
    const doc = await corpusScan({ seed, index });
    const type = await sniffDocumentType(doc.bytes);
    if (!type.ok) throw new Error(type.reason_code);
    const pages = await extractPages({ ocr }, { bytes: doc.bytes, mimeType: type.value });
    if (!pages.ok) throw new Error(pages.reason_code);
    return { id: doc.id, text: pages.value.pages.map((p) => p.text).join('\n') };
  };

  it('reads back the accent of a capital and the slash of an "Ø" that the page reading dropped', async () => {
    // Corpus scans (seed 11) whose page reading was "AMELIE GIRARD" and "SOFIE JORGENSEN".
    const accent = await pageText(11, 51);
    expect(accent.id).toBe('utility_bill-0051.png');
    expect(accent.text).toContain('AMÉLIE GIRARD');
    const slash = await pageText(11, 31);
    expect(slash.id).toBe('utility_bill-0031.jpg');
    expect(slash.text).toContain('SOFIE JØRGENSEN');
  }, 60_000);
});
