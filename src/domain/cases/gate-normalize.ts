/** Case, accents, punctuation and spacing do not make two strings different. */
export function normalizeText(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const HONORIFICS = new Set(['mr', 'mrs', 'ms', 'miss', 'mx', 'dr', 'prof', 'sir', 'jr', 'sr']);

export interface NameComparison {
  match: boolean;
  method: 'exact_normalized' | 'token_set' | 'token_set_without_initials' | 'none';
  left: string;
  right: string;
}

/**
 * Names match when their words match in any order ("Doe, Jane" = "Jane Doe"), ignoring case,
 * accents, punctuation and honorifics; failing that, when they match once single-letter initials
 * are dropped ("Jane A. Doe" = "Jane Doe"). The method that matched is recorded with the result.
 */
export function compareNames(a: string, b: string): NameComparison {
  const left = normalizeText(a);
  const right = normalizeText(b);
  if (left === right && left !== '') return { match: true, method: 'exact_normalized', left, right };
  const tokens = (s: string) => s.split(' ').filter((t) => t !== '' && !HONORIFICS.has(t)).sort();
  const l = tokens(left);
  const r = tokens(right);
  if (l.length > 0 && l.join(' ') === r.join(' ')) return { match: true, method: 'token_set', left, right };
  const withoutInitials = (t: string[]) => t.filter((x) => x.length > 1).join(' ');
  if (withoutInitials(l) !== '' && withoutInitials(l) === withoutInitials(r)) {
    return { match: true, method: 'token_set_without_initials', left, right };
  }
  return { match: false, method: 'none', left, right };
}

/** A decimal string as a number, or undefined when it is not one. */
export function parseDecimal(value: string): number | undefined {
  const cleaned = value.replace(/[,\s$€£]/g, '');
  if (!/^-?\d+(\.\d+)?$/.test(cleaned)) return undefined;
  return Number(cleaned);
}

/** Whole days from an ISO date (YYYY-MM-DD) to `now`'s UTC date; negative when the date is later. */
export function daysSince(isoDate: string, now: Date): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(isoDate)) return undefined;
  const date = Date.parse(`${isoDate}T00:00:00.000Z`);
  if (Number.isNaN(date)) return undefined;
  const today = Date.parse(`${now.toISOString().slice(0, 10)}T00:00:00.000Z`);
  return Math.round((today - date) / 86_400_000);
}
