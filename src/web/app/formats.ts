/**
 * Intl formatters for the applicant's pages, built once per locale and kind. Building one costs
 * more than a page's whole render (measured with --cpu-prof: the form page's own code was the top
 * entry, almost all of it `new Intl.DateTimeFormat`), and a process serves a handful of locales.
 */
const cache = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat | Intl.DisplayNames>();

function cached<T extends Intl.DateTimeFormat | Intl.NumberFormat | Intl.DisplayNames>(key: string, make: () => T): T {
  let hit = cache.get(key) as T | undefined;
  if (!hit) {
    hit = make();
    // Keys come from our locales and the case types' currencies: a small set, but bounded anyway.
    if (cache.size > 500) cache.clear();
    cache.set(key, hit);
  }
  return hit;
}

/** Dates as people read them: "7 March 1990" in English (en-GB order), the locale's own elsewhere. */
const dateLocale = (locale: string) => (locale === 'en' ? 'en-GB' : locale);

export function formatLongDate(locale: string, date: Date): string {
  return cached(`date:${locale}`, () => new Intl.DateTimeFormat(dateLocale(locale), { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })).format(date);
}

export function formatDateTime(locale: string, date: Date): string {
  return cached(`datetime:${locale}`, () => new Intl.DateTimeFormat(dateLocale(locale), { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' })).format(date);
}

export function formatMoney(locale: string, currency: string, amount: number): string {
  return cached(`money:${locale}:${currency}`, () => new Intl.NumberFormat(locale, { style: 'currency', currency })).format(amount);
}

/** The currency symbol for a money field's prefix: "$", "£", "€", or the code where there is none. */
export function currencySymbol(currency: string, locale: string): string {
  const parts = cached(`symbol:${locale}:${currency}`, () => new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay: 'narrowSymbol' })).formatToParts(1);
  return parts.find((p) => p.type === 'currency')?.value ?? currency;
}

export function currencyName(currency: string, locale: string): string {
  return cached(`currency-name:${locale}`, () => new Intl.DisplayNames(locale, { type: 'currency' })).of(currency) ?? currency;
}

/** An amount with no currency given: two decimals, grouped as the locale groups ("4 200,00"). */
export function formatDecimal(locale: string, amount: number): string {
  return cached(`decimal:${locale}`, () => new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 })).format(amount);
}

export function formatNumber(locale: string, n: number): string {
  return cached(`number:${locale}`, () => new Intl.NumberFormat(locale, { maximumFractionDigits: 6 })).format(n);
}

/** One decimal, as a file size reads ("1,5" in French and German). */
export function formatOneDecimal(locale: string, n: number): string {
  return cached(`one-decimal:${locale}`, () => new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 })).format(n);
}
