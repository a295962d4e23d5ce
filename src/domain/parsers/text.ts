import { fromEveryPack } from '../locales/index.ts';
import { repairOcrDigits, type ParseContext, type ParsedValue } from './common.ts';
import { parseDate } from './date.ts';

/**
 * Free-text values: person names, organisation strings and identifiers. The caller has already
 * cut the input at the end of the cell (column gap) and before the next known label; these
 * parsers also stop at an unknown label ("SSN:") and drop label words that lead into it.
 */

/** Words that label fields, in every locale pack's language, lowercase (see LabelWords). */
const LABEL_WORDS = new Set(fromEveryPack((pack) => [...pack.labels.notNames, ...pack.labels.alsoNames]));

/** The label words that can never be part of a person's name (unlike Bill, Page, Grant …):
 * a name never starts with one and stops in front of one. */
const NAME_STOP_WORDS = new Set(fromEveryPack((pack) => pack.labels.notNames));

const PARTICLES = new Set(['van', 'von', 'der', 'den', 'de', 'del', 'della', 'di', 'da', 'du', 'la', 'le', 'bin', 'binti', 'al', 'el', 'ter', 'ten', 'dos', 'das', 'y']);
const SUFFIXES = /^(jr|sr|ii|iii|iv|phd|md)\.?,?$/i;
/** A capitalised or all-caps word, with internal apostrophes/hyphens/periods: O'Brien, Smith-Jones, McDonald. */
const NAME_WORD = /^\p{Lu}[\p{L}'’.-]*$/u;
const INITIAL = /^\p{Lu}\.?$/u;
const LOWER_WORD = /^\p{Ll}[\p{L}'’-]*$/u;

interface Token { readonly text: string; readonly start: number; readonly end: number; }

function tokens(text: string): Token[] {
  return [...text.matchAll(/\S+/g)].map((m) => ({ text: m[0], start: m.index, end: m.index + m[0].length }));
}

/** "van der Berg, …": particles may open a name when a capitalised word follows them. */
function startsSurname(list: readonly Token[]): boolean {
  const next = list.find((t) => !PARTICLES.has(t.text.replace(/[,;:]+$/, '').toLowerCase()));
  return next !== undefined && NAME_WORD.test(next.text.replace(/[,;:]+$/, ''));
}

const bare = (word: string) => word.replace(/[,;:]+$/, '').toLowerCase();
/** A word without the marks around it: OCR reads a label's colon as "!", "." or a quote ("code!", "ID‘"). */
const stripped = (word: string) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '').toLowerCase();

/**
 * Cuts a value before an inline label: at the first word ending in ":" (not the first word),
 * together with any label words right in front of it ("Jane Doe Pay period: …" → "Jane Doe").
 */
function cutAtInlineLabel(list: Token[]): { kept: Token[]; cut: boolean } {
  const colon = list.findIndex((t, i) => i > 0 && /:$/.test(t.text));
  if (colon < 0) return { kept: list, cut: false };
  let end = colon;
  while (end > 1 && LABEL_WORDS.has(bare(list[end - 1]!.text))) end--;
  return { kept: list.slice(0, end), cut: true };
}

/**
 * A person's name as written (whitespace collapsed): capitalised or all-caps words, initials,
 * particles (van, de, bin …) and suffixes (Jr.). Stops at a digit, a label word, or a word that is
 * neither. All-lowercase names are accepted only when every word is lowercase (OCR of small caps).
 * One-word names are accepted with lower quality (`single_word_name`).
 */
export function parseName(raw: string, context: ParseContext): ParsedValue | null {
  const input = context.ocr ? repairOcrInitials(raw) : raw;
  const { kept } = cutAtInlineLabel(tokens(input));
  const accepted: Token[] = [];
  const allLower = kept.length > 0 && kept.every((t) => LOWER_WORD.test(t.text.replace(/[,.]+$/, '')));
  for (const token of kept) {
    const word = token.text.replace(/[;:]+$/, '');
    const clean = word.replace(/,$/, '');
    const position = accepted.length;
    if (position === 0 && NAME_STOP_WORDS.has(clean.toLowerCase())) return null;
    if (position > 0 && NAME_STOP_WORDS.has(clean.toLowerCase())) break;
    // A date after the name is another field's value whose column gap was lost ("PATRICIA
    // HERNANDEZ Jun 6, 2026"): "Jun", "May" or "April" starting a date is not part of the name.
    if (position > 0 && /^\p{L}/u.test(clean) && parseDate(input.slice(token.start), context)) break;
    const ok =
      NAME_WORD.test(clean) ||
      INITIAL.test(clean) ||
      (position > 0 && SUFFIXES.test(clean)) ||
      (PARTICLES.has(clean.toLowerCase()) && (position > 0 || startsSurname(kept))) ||
      (allLower && LOWER_WORD.test(clean));
    if (!ok || /\d/.test(clean)) break;
    accepted.push({ text: clean, start: token.start, end: token.start + clean.length });
    // "Doe, Jane" / "van der Berg, Jane": a comma after the surname is the surname-first form;
    // after a given name it ends the name ("Jane Doe, 12 Oak St").
    if (word.endsWith(',') && !SUFFIXES.test(clean) && accepted.slice(0, -1).some((t) => !PARTICLES.has(t.text.toLowerCase()))) break;
    if (accepted.length === 6) break;
  }
  // Trailing particles or a dangling "Doe," are not a name's end.
  while (accepted.length > 0 && PARTICLES.has(accepted[accepted.length - 1]!.text.toLowerCase())) accepted.pop();
  if (accepted.length === 0) return null;
  const letters = accepted.map((t) => t.text).join('').replace(/[^\p{L}]/gu, '');
  if (letters.length < 2) return null;
  const first = accepted[0]!;
  const last = accepted[accepted.length - 1]!;
  const text = input.slice(first.start, last.end).replace(/,$/, '');
  const reasons: string[] = [];
  let quality = 1;
  if (input.slice(first.start, last.end) !== raw.slice(first.start, last.end)) {
    reasons.push('ocr_corrected_characters');
    quality *= 0.9;
  }
  if (accepted.length === 1) {
    reasons.push('single_word_name');
    quality *= 0.75;
  }
  return { value: text.replace(/\s+/g, ' '), start: first.start, end: first.start + text.length, quality, reasons };
}

/**
 * OCR misreads the full stop of a middle initial ("Hannah D: Price", "PRIYA O, MCDONALD") and
 * reads the initial I as a bar ("Aoife |. Byrne"). One capital (or bar) plus one mark, between two
 * words, is an initial: no label or surname is one letter long. Character for character, so
 * offsets into the repaired text are offsets into the original.
 */
function repairOcrInitials(text: string): string {
  return text
    .replace(/(?<=\S\s+)([\p{Lu}|])[.,:;](?=\s+\p{L})/gu, (_, letter: string) => `${letter === '|' ? 'I' : letter}.`)
    // A speck read as a quote mark in front of a later word of the name ("Kowalski, ‘Michael").
    .replace(/(?<=\S\s+)['‘’`"“”](?=\p{Lu})/gu, ' ');
}

/**
 * Free text (an employer, a plan name): the rest of the cell, cut before an inline label, with
 * trailing punctuation other than "." dropped. At most 120 characters; needs a letter or digit.
 */
export function parseString(input: string, _context: ParseContext): ParsedValue | null {
  const { kept, cut } = cutAtInlineLabel(tokens(input));
  if (kept.length === 0) return null;
  const first = kept[0]!;
  let end = kept[kept.length - 1]!.end;
  while (end > first.start && /[,;:\-–—|]/.test(input[end - 1]!)) end--;
  if (end - first.start > 120) return null;
  const text = input.slice(first.start, end);
  if (!/[\p{L}\p{N}]/u.test(text)) return null;
  if (LABEL_WORDS.has(stripped(kept[0]!.text)) && kept.length === 1) return null;
  return { value: text.replace(/\s+/g, ' '), start: first.start, end, quality: cut ? 0.95 : 1, reasons: [] };
}

/**
 * An identifier as written, upper-cased: letters, digits and - / . separators with at least one
 * digit and 3+ characters ("ACC-0012-3345", "12-3456789"), masked digits allowed ("XXX-XX-1234",
 * "****1234"), or digit groups separated by single spaces ("1234 5678 9012").
 */
/** A register's letters and then its number, "HRB 870543", "SC 123456": one identifier. */
const PREFIXED_NUMBER = /^[A-Z]{1,4} \d[\d./-]*\d(?![\p{L}\d])/u;

/** UK sort code and account number, "30-92-11 55817264": one identifier across the space. */
const SORT_CODE_ACCOUNT = /^\d{2}-\d{2}-\d{2}(?: \d{6,10})?(?![\p{L}\d])/u;

/**
 * An IBAN at the start of `text`, printed grouped ("PT50 0002 0123 1234 5678 9015 4") or not:
 * the longest run of groups that passes the ISO 13616 mod-97 check, so the check digits — not
 * the spaces — decide where it ends. Null when no prefix validates.
 */
const IBAN_DIGIT_LOOK_ALIKES: Record<string, string> = { O: '0', D: '0', Q: '0', I: '1', L: '1', S: '5', B: '8', Z: '2', G: '6' };

function repairIbanDigits(text: string): string {
  const head = text.match(/^[A-Z]{2}[0-9A-Z]{2}(?: [0-9A-Z]{1,4})+/)?.[0];
  if (!head) {
    // Printed without spaces ("DES7735429975453257452"): only the check digits can be told apart.
    const compact = text.match(/^([A-Z]{2})([0-9A-Z]{2})(?=[0-9A-Z]{11,30}(?![\p{L}\d]))/u);
    if (!compact) return text;
    const digit = (c: string) => IBAN_DIGIT_LOOK_ALIKES[c] ?? c;
    return compact[1]! + [...compact[2]!].map(digit).join('') + text.slice(4);
  }
  const groups = head.split(' ');
  const digit = (c: string) => IBAN_DIGIT_LOOK_ALIKES[c] ?? c;
  groups[0] = groups[0]!.slice(0, 2) + [...groups[0]!.slice(2)].map(digit).join('');
  for (let i = 1; i < groups.length; i++) {
    const g = groups[i]!;
    if ((g.match(/\d/g) ?? []).length >= g.length - 1) groups[i] = [...g].map(digit).join('');
  }
  return groups.join(' ') + text.slice(head.length);
}

function ibanAt(text: string): string | null {
  const run = text.match(/^[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![\p{L}\d])/u)?.[0];
  if (!run) return null;
  for (let end = run.length; end >= 15; end--) {
    if (end < run.length && run[end] !== ' ') continue;
    const candidate = run.slice(0, end).trimEnd();
    if (ibanChecksumValid(candidate.replace(/ /g, ''))) return candidate;
  }
  return null;
}

export function ibanChecksumValid(compact: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(compact)) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const digits = ch >= 'A' && ch <= 'Z' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
  }
  return remainder === 1;
}

/** One group of a spaced identifier: capitals, digits and - / . inside ("ZX", "4410", "B", "12-04"). */
const ID_GROUP = /^[A-Z0-9](?:[A-Z0-9./-]*[A-Z0-9])?$/;
const DATE_GROUP = /^\d{1,2}[./-]\d{1,2}[./-]\d{2,4}$/;

/**
 * A value cell that is nothing but an identifier in spaced groups ("ZX 4410 7721 B", "PL 61 1090
 * 1014"): the whole run to the column gap or the end of the line, not its first group or two. The
 * run must be identifier-shaped all through — capitals and digits in single-space groups, at least
 * half the groups with digits, letter-only groups of at most three letters (a word is not part
 * of a reference) and no date — so "HRB 870543 Amtsgericht" still ends at the number.
 */
function spacedIdentifier(text: string): string | null {
  const run = text.trim().replace(/[.,;:]+$/, '');
  if (!/^\S+(?: \S+)+$/.test(run)) return null;
  const groups = run.split(' ');
  if (groups.length > 8 || !groups.every((g) => ID_GROUP.test(g) && !DATE_GROUP.test(g))) return null;
  const withDigits = groups.filter((g) => /\d/.test(g)).length;
  if (withDigits * 2 < groups.length) return null;
  if (groups.some((g) => !/\d/.test(g) && g.length > 3)) return null;
  return text.startsWith(run) ? run : null;
}

export function parseIdNumber(input: string, context: ParseContext): ParsedValue | null {
  const lead = input.match(/^\s*/)![0].length;
  const original = input.slice(lead);
  const repaired = context.ocr ? repairIdentifierDigits(original) : { text: original, repaired: false };
  let text = repaired.text;
  let quality = 1;
  const reasons: string[] = [];
  // An IBAN is read before the digit repairs: they would turn its country code into digits
  // ("GB95 AIBK …" → "6895 …"). Its own repairs follow, checked by mod-97.
  let structured = ibanAt(original);
  if (structured) text = original;
  else structured = ibanAt(text);
  if (!structured && context.ocr) {
    // OCR misreads digits of an IBAN as letters ("DES8 3182…") and reads a speck between two
    // groups as a mark ("4883.1434"): repair the check digits, the digit-dominated groups and the
    // marks between groups, one character for one, and keep the reading only if mod-97 agrees.
    const fixed = repairIbanDigits(original.replace(/(?<=^[A-Z]{2}[0-9A-Z]{2}(?:[ .,·][0-9A-Z]{4})*)[.,·](?=[0-9A-Z]{1,4}(?![0-9A-Z]))/g, ' '));
    const found = fixed !== original ? ibanAt(fixed) : null;
    if (found) {
      structured = found;
      text = fixed;
    }
  }
  if (!structured) {
    // IBAN-shaped but failing its check (a group lost to OCR): still the whole identifier up to
    // the column gap, never just "AE85"; the failed check lowers the score.
    const shaped = text.match(/^[A-Z]{2}\d{2}(?: [A-Z0-9]{2,4}){2,8}(?![\p{L}\d])/u)?.[0];
    if (shaped) {
      structured = shaped;
      quality *= 0.8;
    }
  }
  structured ??= spacedIdentifier(text) ?? text.match(SORT_CODE_ACCOUNT)?.[0] ?? text.match(PREFIXED_NUMBER)?.[0] ?? null;
  const m: readonly string[] | null = structured ? [structured, structured] : text.match(/^(?:#\s?)?((?:\d{2,}(?: \d{2,})+)|[\p{L}\d*#][\p{L}\d*#./-]*[\p{L}\d*])(?![\p{L}\d])/u);
  if (!m) return null;
  const id = m[1]!;
  if (!/\d/.test(id) || id.replace(/[^\p{L}\d*]/gu, '').length < 3) return null;
  const whole = m[0]!;
  const start = lead + whole.length - id.length;
  if (text.slice(0, whole.length) !== original.slice(0, whole.length)) {
    reasons.push('ocr_corrected_characters');
    quality *= 0.9;
  }
  return { value: id.toUpperCase(), start, end: start + id.length, quality, reasons };
}

/**
 * Digit look-alikes repaired in an identifier, except in its letter prefix: two or more capitals
 * before its first digit ("DZ-946917/88", "SZ7966370", "QO-464306/23") are the register's or the
 * office's letters, which the repair would turn into digits ("02-946917/88") because every one of
 * them looks like a digit. A lone letter before the digits is still read as a digit ("O12345"):
 * one letter is as often a misread digit as a prefix.
 */
function repairIdentifierDigits(text: string): { text: string; repaired: boolean } {
  const prefix = text.match(/^[A-Z]{2,4}(?=[-/ .]?\d)/)?.[0] ?? '';
  const rest = repairOcrDigits(text.slice(prefix.length));
  return { text: prefix + rest.text, repaired: rest.repaired };
}

/** Digits OCR reads where a capital was printed, at the start of an identifier. */
const LEADING_LETTER_LOOK_ALIKES: Record<string, string> = { '1': 'I', '0': 'O', '5': 'S', '8': 'B', '2': 'Z', '6': 'G' };
const idShape = (value: string) => value.replace(/\p{Lu}/gu, 'A').replace(/\d/g, '9');

/**
 * `value` with its leading look-alike digits (at most three) read as capitals, when that gives the
 * shape of one of `references` (other identifiers of the document) and `value` as read matches
 * none of them: "1E/4410/B" beside "IE/2231/K" is "IE/4410/B". Same length, so evidence holds.
 */
export function repairLeadingLetters(value: string, references: readonly string[]): string {
  const shapes = new Set(references.map(idShape));
  if (shapes.size === 0 || shapes.has(idShape(value))) return value;
  for (let k = 1; k <= 3 && k <= value.length; k++) {
    const lead = value.slice(0, k);
    if (![...lead].every((c) => c in LEADING_LETTER_LOOK_ALIKES)) break;
    const candidate = [...lead].map((c) => LEADING_LETTER_LOOK_ALIKES[c]!).join('') + value.slice(k);
    if (shapes.has(idShape(candidate))) return candidate;
  }
  return value;
}
