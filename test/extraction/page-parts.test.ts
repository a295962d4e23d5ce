import { afterAll, describe, expect, it } from 'vitest';
import { createTesseractOcr, extractPages } from '../../src/domain/documents/index.ts';
import type { OcrEngine, OcrWord } from '../../src/domain/documents/ocr/engine.ts';
import { joinParts, MIN_LINES_TO_SPLIT, MIN_PIXELS_TO_SPLIT, planParts, rowsOf } from '../../src/domain/documents/ocr/page-parts.ts';
import { decodeRaster, rasterOfPixels } from '../../src/domain/documents/ocr/raster.ts';
import { textScan } from './helpers.ts';

/**
 * Issue 28 §5: a page with much text is read as two parts at once, cut between two lines where
 * the ink above and below is even, each part running two lines past the cut; its words are put
 * back where they were. The cut never goes through ink; a page read in parts reads as the whole
 * page did.
 */

/** A white raster with black bands of ink at the given row ranges [from, to). */
function rasterWithInk(width: number, height: number, inkRows: Array<[number, number]>): ReturnType<typeof rasterOfPixels> {
  const rgba = new Uint8ClampedArray(width * height * 4).fill(255);
  for (const [from, to] of inkRows) {
    for (let y = from; y < to; y++) {
      // Ink across part of the row, as letters leave it.
      for (let x = 50; x < width - 50; x += 3) rgba.fill(0, 4 * (y * width + x), 4 * (y * width + x) + 3);
    }
  }
  return rasterOfPixels(width, height, rgba);
}

/** Lines of text every 30 rows (18 rows of ink, 12 blank), from row `first` to `last`. */
function lines(last: number, first = 40, pitch = 30, ink = 18): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let y = first; y + ink <= last; y += pitch) out.push([y, y + ink]);
  return out;
}

const blankAround = (raster: ReturnType<typeof rasterOfPixels>, y: number, rows: number) => {
  for (let r = y - rows; r <= y + rows; r++) {
    for (let x = 0; x < raster.width; x++) if (raster.rgba[4 * (r * raster.width + x)]! < 128) return false;
  }
  return true;
};

describe('where a page is cut', () => {
  it('cuts in the middle of a gap between lines, where the ink above and below is even, with two lines of context each side', () => {
    const raster = rasterWithInk(1000, 1200, lines(1160));
    const plan = planParts(raster)!;
    expect(plan).toBeDefined();
    expect(plan.lines).toBe(lines(1160).length);
    expect(Math.abs(plan.cut - 600)).toBeLessThan(30);
    // In the middle of a 12-row gap: at least 5 blank rows on each side of the cut.
    expect(blankAround(raster, plan.cut, 5)).toBe(true);
    // Each part runs on two lines past the cut, to the middle of a gap.
    expect(plan.topEnd).toBe(plan.cut + 60);
    expect(plan.bottomStart).toBe(plan.cut - 60);
  });

  it('cuts within the text when the text fills only the top of the page', () => {
    // 32 lines from row 40 to row 1000 of 2400: the cut is among them, not in the blank lower page.
    const plan = planParts(rasterWithInk(1000, 2400, lines(1000)))!;
    expect(plan.cut).toBeGreaterThan(460);
    expect(plan.cut).toBeLessThan(580);
  });

  it('reads a page whole when no gap leaves each part 30 % of the ink', () => {
    // A block of ink with no gap in it (a photo, a ruled table), then 25 lines below it.
    const raster = rasterWithInk(1000, 2400, [[40, 1400], ...lines(2380, 1420)]);
    expect(lines(2380, 1420).length).toBeGreaterThanOrEqual(MIN_LINES_TO_SPLIT);
    expect(planParts(raster)).toBeUndefined();
  });

  it('never cuts through a gap thinner than a mark above its letter could leave', () => {
    // Lines 3 rows apart over the middle of the page: the cut is in a wide gap beside them.
    const raster = rasterWithInk(1000, 1200, [...lines(520), ...lines(700, 520, 23, 20), ...lines(1160, 720)]);
    const plan = planParts(raster)!;
    expect(plan.cut < 520 || plan.cut >= 700).toBe(true);
    expect(blankAround(raster, plan.cut, 5)).toBe(true);
  });

  it('reads small pages and pages of few lines whole', () => {
    expect(800 * 1000).toBeLessThan(MIN_PIXELS_TO_SPLIT);
    expect(planParts(rasterWithInk(800, 1000, lines(960)))).toBeUndefined();
    // 20 lines on a large page: read whole, as it reads in well under the budget.
    expect(planParts(rasterWithInk(1000, 1200, lines(640)))).toBeUndefined();
  });

  it('treats a stray dot as paper, and more ink than that as ink', () => {
    const page = lines(1160);
    const gaps = (pixels: number) => {
      const raster = rasterWithInk(1000, 1200, page);
      for (const [, end] of page) {
        for (let y = end; y < end + 12; y++) raster.rgba.fill(0, 4 * (y * 1000 + 10), 4 * (y * 1000 + 10 + pixels));
      }
      return raster;
    };
    // A stray pixel in every row of every gap: the gaps are still paper, and the cut is in one.
    const cut = planParts(gaps(1))!.cut;
    expect(page.some(([from, to]) => cut + 5 >= from && cut - 5 < to)).toBe(false);
    // Two pixels of ink in every row: no gap is left, and there is nowhere to cut.
    expect(planParts(gaps(2))).toBeUndefined();
  });

  it("joins the parts' words, each part's on its own side of the cut, back onto the page", () => {
    const raster = rasterWithInk(1000, 1200, lines(1160));
    const plan = planParts(raster)!;
    const part = rowsOf(raster, plan.bottomStart, raster.height);
    expect(part.height).toBe(1200 - plan.bottomStart);
    expect(part.rgba[0]).toBe(raster.rgba[4 * 1000 * plan.bottomStart]);
    const word = (text: string, top: number, bottom: number): OcrWord => ({ text, confidence: 96, x0: 10, x1: 60, top, bottom, letters: [{ text: text[0]!, x0: 10, x1: 20, y0: top + 1, y1: bottom - 1 }] });
    const ownTop = word('A', plan.cut - 30, plan.cut - 12);
    const contextInTop = word('B', plan.cut + 12, plan.cut + 30); // read again by the bottom part
    // The bottom part's words, in its own rows: B again, and C further down.
    const bottomPart = [word('A', ownTop.top - plan.bottomStart, ownTop.bottom - plan.bottomStart), word('B', 72, 90), word('C', 300, 318)];
    const joined = joinParts(plan, [[ownTop, contextInTop], bottomPart]);
    expect(joined.map((w) => [w.text, w.top, w.bottom])).toEqual([
      ['A', plan.cut - 30, plan.cut - 12],
      ['B', plan.bottomStart + 72, plan.bottomStart + 90],
      ['C', plan.bottomStart + 300, plan.bottomStart + 318],
    ]);
    expect(joined[2]!.letters![0]).toMatchObject({ y0: plan.bottomStart + 301, y1: plan.bottomStart + 317 });
  });
});

/** An A4 page at 150 dpi (1240 × 1754) of our own lines, grey paper, in DejaVu Sans. */
function formPage(): Promise<Uint8Array> {
  const rows = [
    'Tenancy agreement', 'Landlord: Margit Øberg Lettings', 'Tenant: Émile Ångström', 'Property: 14 Harbour Row, Leith EH6 6QT',
    'Start of tenancy: 1 March 2026', 'Monthly rent: £1,240.00', 'Deposit: £1,430.00', 'Rent is due on the first day of each month.',
    'Payment reference: TEN-88213-LR', 'Bank: Northern Mutual, sort code 80-22-60', 'Account number: 41177302', 'Notice period: two months',
    'Inventory attached: yes', 'Pets allowed: one cat', 'Council tax band: C', 'Energy rating: 71 (C)',
    'Guarantor: Zoë Brontë', 'Guarantor address: 3 Mill Lane, Kendal LA9 4QE', 'Emergency contact: 0131 496 0734', 'Keys issued: 3',
    'Smoke alarms tested: 28 February 2026', 'Gas safety certificate: GS-2026-1187', 'Meter reading (electricity): 40812', 'Meter reading (gas): 11953',
    'Signed by the landlord: M. Øberg', 'Signed by the tenant: É. Ångström', 'Date signed: 20 February 2026',
  ];
  return textScan(rows, { width: 1240, height: 1754, paper: 'rgb(250,250,247)', ink: '#141414', fontPx: 26, left: 110, top: 120, pitch: 58 });
}

describe('a page read in two parts with the real engine', () => {
  const ocr = createTesseractOcr();
  afterAll(() => ocr.close());

  it('reads the words and places the boxes the whole page reading does', async () => {
    const image = await formPage();
    expect(planParts(await decodeRaster(image))).toBeDefined();
    const parts: number[] = [];
    const inParts: OcrEngine = {
      ...ocr,
      recognize: () => Promise.reject(new Error('a page this size is read in parts')),
      recognizeParts: (images, options) => {
        parts.push(images.length);
        return ocr.recognizeParts!(images, options);
      },
    };
    const whole: OcrEngine = { ...ocr, recognizeParts: undefined };
    const read = async (engine: OcrEngine) => {
      const pages = await extractPages({ ocr: engine }, { bytes: image.slice(), mimeType: 'image/png' });
      if (!pages.ok) throw new Error(pages.reason_code);
      return pages.value.pages[0]!;
    };
    const a = await read(inParts);
    const b = await read(whole);
    expect(parts).toEqual([2]);
    expect(a.text).toBe(b.text);
    for (const word of ['Harbour Row', 'Kendal LA9 4QE', 'GS-2026-1187', '11953', '20 February 2026']) expect(a.text, a.text).toContain(word);
    // Every character's box is where the whole reading put it, within a pixel's rounding.
    expect(a.origin).toBeDefined();
    const boxes = (page: typeof a) => JSON.stringify(page.origin, (_, v) => (typeof v === 'number' ? Math.round(v) : v));
    expect(boxes(a)).toBe(boxes(b));
  }, 60_000);
});
