/**
 * What every value parser returns: the value and the exact part of its input it was read from,
 * so the caller can turn `start..end` into evidence. Parsers read from the start of their input
 * (the text right after an anchor) and ignore whatever follows the value.
 */
export interface ParsedValue {
  readonly value: string;
  /** Offsets of the value's text inside the parser's input. */
  readonly start: number;
  readonly end: number;
  /** 0..1: 1 for a clean, unambiguous reading; lower for guesses (see each parser). */
  readonly quality: number;
  readonly reasons: readonly string[];
}

export interface ParseContext {
  /** Text came from OCR: allow digit look-alike repairs ("O" → "0") inside numbers. */
  readonly ocr: boolean;
  /** How to read an all-numeric date whose day and month are both ≤ 12. */
  readonly dateOrder: DateOrder;
  /** True when dateOrder was inferred from this document (or a format hint next to the label). */
  readonly dateOrderFromDocument: boolean;
}

export type DateOrder = 'mdy' | 'dmy';

/** Characters OCR puts where a digit was. Repairs are applied only inside digit-dominated tokens. */
export const DIGIT_LOOK_ALIKES: Record<string, string> = { O: '0', o: '0', D: '0', Q: '0', l: '1', I: '1', i: '1', '|': '1', '!': '1', S: '5', s: '5', B: '8', Z: '2', z: '2', G: '6', g: '9', q: '9' };

/**
 * Replaces digit look-alikes inside tokens that are mostly digits already ("03/l4/2O26",
 * "$1,2S4.56"), one character for one character, so offsets into the repaired text are offsets
 * into the original. Returns the input unchanged when nothing qualifies.
 */
export function repairOcrDigits(text: string): { text: string; repaired: boolean } {
  let repaired = false;
  const out = text.replace(/[^\s]+/g, (token) => {
    const digits = (token.match(/\d/g) ?? []).length;
    const letters = token.replace(/[\d.,/:;'’$€£()+-]/g, '');
    // Only tokens whose every non-digit is a look-alike: "03/l4/2O26" yes, "14-Sep-2026" never.
    if (digits < 2 || letters === '' || letters.length > digits || [...letters].some((c) => !(c in DIGIT_LOOK_ALIKES))) return token;
    repaired = true;
    return token.replace(/[OoDQlIi|!SsBZzGgq]/g, (c) => DIGIT_LOOK_ALIKES[c]!);
  });
  return { text: out, repaired };
}

/**
 * Words as one regular-expression alternation, longest first so "september" is not read as "sep"
 * and "tember", each escaped: pack words carry full stops and slashes ("str.", "c/").
 */
export function alternation(words: Iterable<string>): string {
  return [...new Set(words)].sort((a, b) => b.length - a.length || (a < b ? -1 : 1)).map(escapeRegExp).join('|');
}

/** Text matched as written inside a regular expression, with or without the `u` flag. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
