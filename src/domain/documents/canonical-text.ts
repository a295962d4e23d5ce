/**
 * The canonical page text: the one string per page that every evidence offset indexes into.
 *
 * Rules (the same for every source, so a fact's quote reads the same whichever format it came from):
 * - Unicode NFC; line ends are LF; BOM, zero-width characters and other control characters are gone.
 * - No whitespace at either end of a line. Inside a line words are separated by ONE space, except
 *   where the source shows a column gap, which becomes ONE tab: a tab or a run of two or more spaces
 *   in text sources; a horizontal gap of at least {@link COLUMN_GAP_EM} × the line's text height
 *   between positioned fragments (PDF text items, OCR words). Keeping that single bit of layout is
 *   what lets fact extraction stop a name at a column boundary and pair a table header with the
 *   cell under it; everything else about spacing is normalised away.
 * - At most one empty line in a row (a paragraph break), none at the start or the end.
 *
 * The functions are pure and deterministic: the same bytes always give the same text, so stored
 * offsets stay valid when a document is re-extracted with the same library versions.
 */

/** A gap this many text heights wide separates columns. Word spaces are ~0.25–0.35 em (0.6 em in
 * Courier); table and form layouts leave ≥ 1.5 em, so 1.0 em splits them with margin on both sides
 * when the height is the font size (PDF text items). */
export const COLUMN_GAP_EM = 1.0;
/**
 * The same for OCR words, whose height is their line's band (ascender to descender, see ocr.ts).
 * Measured on the tuned half of the corpus scans (311 facts): 1.6 merged a long address or name
 * with the next column of a header table ("…København K 26. april 2026"), F1 0.931; 1.4 gave
 * 0.937; 1.2 gave 0.938 and split the columns, at the price of one date OCR spaced widely
 * ("2⇥november 2025", read across the gap by extract-facts).
 */
export const OCR_COLUMN_GAP = 1.2;
/** Below this fraction of the text height, two fragments are parts of one word (kerning splits). */
const WORD_GAP_EM = 0.12;
/** A vertical gap of more than this many line heights between lines is a paragraph break. */
const PARAGRAPH_GAP_EM = 1.1;

// Zero-width space/non-joiner/joiner, word joiner, BOM, soft hyphen: invisible, never part of a value.
const INVISIBLE = /[\u200B-\u200D\u2060\uFEFF\u00AD]/g;
// C0/C1 controls except TAB and LF (CR and FF are turned into LF before this runs).
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
// Any horizontal whitespace, including NBSP and the typographic spaces PDFs and Word like to use.
const HORIZONTAL_SPACE = /[ \t\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]+/g;

/** Canonical text of a plain-text or DOCX source (see the module comment for the rules). */
export function canonicalizeText(raw: string): string {
  const lines = raw
    .normalize('NFC')
    .replace(/\r\n?|\f|\u2028|\u2029/g, '\n')
    .replace(INVISIBLE, '')
    .replace(CONTROL, '')
    .split('\n')
    .map(canonicalizeLine);
  return joinLines(lines);
}

/** One line: trimmed; a tab or 2+ spaces → one tab (a column gap); any other space run → one space. */
export function canonicalizeLine(line: string): string {
  return line
    .replace(HORIZONTAL_SPACE, (run) => (run.includes('\t') || run.length >= 2 ? '\t' : ' '))
    .replace(/^[\t ]+|[\t ]+$/g, '');
}

function joinLines(lines: readonly string[]): string {
  const out: string[] = [];
  for (const line of lines) {
    if (line === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    out.push(line);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out.join('\n');
}

/**
 * A piece of text with its box on the page, in a coordinate system where y grows downwards
 * (PDF user space is flipped by the caller). `x0 < x1`, `top < bottom`.
 */
export interface PositionedFragment {
  readonly text: string;
  readonly x0: number;
  readonly x1: number;
  readonly top: number;
  readonly bottom: number;
  /** Relative advance width of each code unit of `text` (font metrics), for evidence boxes. */
  readonly advances?: readonly number[];
  /** The glyphs' vertical extent when it differs from the layout band, for evidence boxes. */
  readonly ink?: { readonly top: number; readonly bottom: number };
}

/**
 * Canonical text of a positioned source: fragments are grouped into lines by vertical overlap,
 * ordered by x inside a line, and joined with nothing (kerning splits), a space (word gap) or a
 * tab (column gap). Deterministic for a given fragment list, whatever order it arrives in.
 */
export function layoutFragments(
  fragments: readonly PositionedFragment[],
  columnGap = COLUMN_GAP_EM,
  /** When given, receives the fragments (text normalised) in the order they were written: origin.ts maps characters back to them. */
  placed?: PositionedFragment[],
): string {
  const usable = fragments
    .map((f) => ({ ...f, text: f.text.normalize('NFC').replace(INVISIBLE, '').replace(CONTROL, '') }))
    .filter((f) => f.text.trim() !== '' && f.bottom > f.top && Number.isFinite(f.x0) && Number.isFinite(f.top));
  // Sort by vertical centre, then x, then text so equal inputs in any order give the same text.
  usable.sort((a, b) => center(a) - center(b) || a.x0 - b.x0 || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));

  interface Line { items: typeof usable; top: number; bottom: number; }
  const lines: Line[] = [];
  for (const fragment of usable) {
    const line = lines[lines.length - 1];
    const height = fragment.bottom - fragment.top;
    // Same line when the fragment's centre falls inside the line's band, shrunk a little so a
    // tight next line (leading ≈ 1.15 em) never merges with this one.
    if (line && center(fragment) <= line.bottom - 0.25 * Math.min(height, line.bottom - line.top)) {
      line.items.push(fragment);
      line.top = Math.min(line.top, fragment.top);
      line.bottom = Math.max(line.bottom, fragment.bottom);
    } else {
      lines.push({ items: [fragment], top: fragment.top, bottom: fragment.bottom });
    }
  }

  const out: string[] = [];
  let previous: Line | undefined;
  for (const line of lines) {
    const height = median(line.items.map((f) => f.bottom - f.top));
    if (previous && line.top - previous.bottom > PARAGRAPH_GAP_EM * height) out.push('');
    line.items.sort((a, b) => a.x0 - b.x0 || a.x1 - b.x1 || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
    // Parts joined once at the end, and the "ends in a space" test looks at the last character
    // only: testing /\s$/ against the growing line scanned all of it for every fragment, which
    // made a line of n fragments cost n² (a 150,000-cell table row took minutes).
    const parts: string[] = [];
    let endsInSpace = false;
    let right = -Infinity;
    for (const item of line.items) {
      const gap = item.x0 - right;
      if (parts.length > 0) {
        if (gap >= columnGap * height) parts.push('\t');
        else if (gap >= WORD_GAP_EM * height || endsInSpace || /^\s/.test(item.text)) parts.push(' ');
      }
      parts.push(item.text);
      placed?.push(item);
      endsInSpace = /\s/.test(item.text[item.text.length - 1]!);
      right = Math.max(right, item.x1);
    }
    out.push(canonicalizeLine(parts.join('')));
    previous = line;
  }
  return joinLines(out);
}

function center(f: PositionedFragment): number {
  return (f.top + f.bottom) / 2;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
