import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { hasLostCapitalMark, hasSlash, isUnmarkedCapitals, type WordBox } from '../../src/domain/documents/lost-marks.ts';
import { ocrImageToPage, type OcrEngine, type OcrWord } from '../../src/domain/documents/ocr.ts';

/**
 * One line of capitals drawn at scan size (20 px type, a ~14 px cap height, as on a 144 dpi
 * scan), with each word's box measured from the canvas and the line's band from the font.
 */
async function line(words: readonly string[], options: { ruleAbove?: boolean } = {}) {
  const canvas = createCanvas(640, 90);
  const context = canvas.getContext('2d');
  context.fillStyle = 'rgb(244,244,240)';
  context.fillRect(0, 0, 640, 90);
  context.fillStyle = '#1a1a1a';
  context.font = 'bold 20px sans-serif';
  const baseline = 55;
  // A rule close above the line, as a table border: ink above every letter, not a mark.
  if (options.ruleAbove) context.fillRect(10, 30, 620, 2);
  const boxes: WordBox[] = [];
  let x = 20;
  for (const word of words) {
    context.fillText(word, x, baseline);
    const width = context.measureText(word).width;
    boxes.push({ text: word.normalize('NFD').replace(/\p{M}/gu, ''), x0: x, x1: x + width, top: baseline - 20, bottom: baseline + 5 });
    x += width + 12;
  }
  const { data } = context.getImageData(0, 0, 640, 90);
  const pixels = { left: 0, top: 0, width: 640, height: 90, data };
  const png = new Uint8Array(await canvas.encode('png'));
  return { pixels, boxes, png };
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
    const canvas = createCanvas(400, 60);
    const context = canvas.getContext('2d');
    context.fillStyle = 'rgb(244,244,240)';
    context.fillRect(0, 0, 400, 60);
    // Grey as a scanner leaves thin strokes: the slash must be seen in it too.
    context.fillStyle = '#555';
    context.font = 'bold 22px sans-serif';
    const boxes: Array<{ letter: string; box: { x0: number; y0: number; x1: number; y1: number } }> = [];
    let x = 10;
    for (const letter of ['Ø', 'O', 'ø', 'o']) {
      context.fillText(letter, x, 40);
      const m = context.measureText(letter);
      boxes.push({ letter, box: { x0: x + m.actualBoundingBoxLeft * -1, x1: x + m.actualBoundingBoxRight, y0: 40 - m.actualBoundingBoxAscent, y1: 40 + m.actualBoundingBoxDescent } });
      x += m.width + 20;
    }
    const { data } = context.getImageData(0, 0, 400, 60);
    const area = { left: 0, top: 0, width: 400, height: 60, data };
    expect(boxes.map(({ letter, box }) => [letter, hasSlash(area, box)])).toEqual([['Ø', true], ['O', false], ['ø', true], ['o', false]]);
  });
});

describe('reading lost marks again, one language at a time', () => {
  const word = (text: string, confidence: number, box: WordBox): OcrWord => ({ text, confidence, x0: box.x0, x1: box.x1, top: box.top, bottom: box.bottom });

  it('keeps the surest reading that is the same word with marks, and leaves other words alone', async () => {
    const { boxes, png } = await line(['AMÉLIE', 'GIRARD']);
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
    const page = await ocrImageToPage(ocr, png, 0, new AbortController().signal, frame);
    expect(page.ok && page.value.text).toBe('AMÉLIE GIRARD');
    // Only the word with a mark on the page was read again, once per language.
    expect(asked).toEqual(['fra', 'deu', 'por', 'dan']);
  });

  it('adds a mark to a word in small letters only where the page shows ink above the letter', async () => {
    // "Lefèvre" is drawn with its grave accent, "Corporation" without any; both were read unsure
    // and without marks, and a language reads each with a mark.
    const canvas = createCanvas(640, 90);
    const context = canvas.getContext('2d');
    context.fillStyle = 'rgb(244,244,240)';
    context.fillRect(0, 0, 640, 90);
    context.fillStyle = '#1a1a1a';
    context.font = 'bold 20px sans-serif';
    const read = (drawn: string, asRead: string, x: number): OcrWord => {
      context.fillText(drawn, x, 55);
      const letters = [...asRead].map((text, k) => {
        const left = x + context.measureText(drawn.slice(0, k)).width;
        const m = context.measureText(drawn[k]!);
        // OCR's box of a letter read without its mark is the letter's body alone.
        const body = context.measureText(text);
        return { text, x0: left, x1: left + m.width, y0: 55 - body.actualBoundingBoxAscent, y1: 55 + body.actualBoundingBoxDescent };
      });
      return { text: asRead, confidence: 88, x0: x, x1: x + context.measureText(drawn).width, top: 35, bottom: 60, letters };
    };
    const words = [read('Lefèvre', 'Lefevre', 20), read('Corporation', 'Corporation', 200)];
    const png = new Uint8Array(await canvas.encode('png'));
    // Each word is read in French, then Irish: "Lefèvre" both times, "Córporation" both times.
    const answers = ['Lefèvre', 'Lefèvre', 'Córporation', 'Córporation'].map((text, k) => ({ ...words[k < 2 ? 0 : 1]!, text, confidence: 95 }));
    const ocr: OcrEngine = {
      markLanguages: ['fra', 'gle'],
      async recognize() { return { words }; },
      async recognizeLine(_image, options) { return { words: options?.language ? [answers.shift()!] : [] }; },
      async close() {},
    };
    const frame = { size: { width: 640, height: 90, unit: 'px' as const }, pixelsPerUnit: 1 };
    const page = await ocrImageToPage(ocr, png, 0, new AbortController().signal, frame);
    expect(page.ok && page.value.text).toBe('Lefèvre\tCorporation');
    expect(answers).toEqual([]);
  });

  it('keeps the page reading when no language is sure enough of a marked word', async () => {
    const { boxes, png } = await line(['KÖHLER']);
    const ocr: OcrEngine = {
      markLanguages: ['fra', 'deu'],
      async recognize() { return { words: [word('KOHLER', 96, boxes[0]!)] }; },
      async recognizeLine(_image, options) { return { words: options?.language === 'fra' ? [word('KÔHLER', 8, boxes[0]!)] : [word('KÖHLER', 85, boxes[0]!)] }; },
      async close() {},
    };
    const frame = { size: { width: 640, height: 90, unit: 'px' as const }, pixelsPerUnit: 1 };
    const page = await ocrImageToPage(ocr, png, 0, new AbortController().signal, frame);
    expect(page.ok && page.value.text).toBe('KOHLER');
  });
});
