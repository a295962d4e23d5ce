/**
 * The page as fact extraction sees it: lines, and inside each line the cells between column gaps.
 * Offsets are absolute indices into the page text, so anything cut from here is evidence-ready.
 */
export interface Segment {
  /** Position of the segment in its line (0 = first column). */
  readonly column: number;
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

export interface PageLine {
  readonly index: number;
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly segments: readonly Segment[];
}

/** A tab, or two or more spaces (for text that did not go through canonicalisation), is a column gap. */
const COLUMN_GAP = /\t+| {2,}|\u00a0{2,}/g;

export function splitPageLines(text: string): PageLine[] {
  const lines: PageLine[] = [];
  let start = 0;
  let index = 0;
  for (;;) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    const lineText = text.slice(start, end);
    lines.push({ index, start, end, text: lineText, segments: splitSegments(lineText, start) });
    index++;
    if (newline < 0) break;
    start = newline + 1;
  }
  return lines;
}

function splitSegments(line: string, offset: number): Segment[] {
  const segments: Segment[] = [];
  let cursor = 0;
  const push = (from: number, to: number) => {
    // Trim inside the cell so segments start and end on visible characters (evidence-friendly).
    while (from < to && /\s/.test(line[from]!)) from++;
    while (to > from && /\s/.test(line[to - 1]!)) to--;
    if (to > from) segments.push({ column: segments.length, start: offset + from, end: offset + to, text: line.slice(from, to) });
  };
  for (const gap of line.matchAll(COLUMN_GAP)) {
    push(cursor, gap.index);
    cursor = gap.index + gap[0].length;
  }
  push(cursor, line.length);
  return segments;
}

export function isBlank(line: PageLine): boolean {
  return line.segments.length === 0;
}
