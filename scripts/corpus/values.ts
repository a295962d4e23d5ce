import type { Rng } from './prng.ts';

/** Values for generated documents: what is printed, and what extraction must return for it. */
export interface Printed { readonly text: string; readonly expected: string; }

export type Locale = 'us' | 'uk';

const FIRST = ['James', 'Mary', 'Robert', 'Patricia', 'John', 'Jennifer', 'Michael', 'Linda', 'David', 'Elizabeth', 'William', 'Barbara',
  'Richard', 'Susan', 'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Charles', 'Karen', 'Daniel', 'Lisa', 'Matthew', 'Margaret', 'Anthony',
  'Sandra', 'Priya', 'Wei', 'Fatima', 'Carlos', 'Aisha', 'Olusegun', 'Siobhan', 'Bill', 'Grace', 'Mateo', 'Hannah', 'Yusuf', 'Chloe', 'Ines'];
const LAST = ['Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez', 'Hernandez',
  'Lopez', 'Wilson', 'Anderson', 'Taylor', 'Moore', 'Jackson', 'Martin', 'Lee', 'Perez', 'Thompson', 'White', 'Harris', "O'Brien",
  'McDonald', 'Smith-Jones', 'van der Berg', 'Nguyen', 'Okafor', 'Kowalski', "D'Angelo", 'MacLeod', 'Fitzgerald', 'Page', 'Price'];

/** A person's name; the expected value is the printed text (extraction keeps names as written). */
export function personName(rng: Rng): Printed {
  const first = rng.pick(FIRST);
  const last = rng.pick(LAST);
  const middle = rng.chance(0.3) ? ` ${String.fromCharCode(65 + rng.int(0, 25))}.` : '';
  const style = rng.weighted([['title', 70], ['upper', 25], ['surname_first', 5]] as const);
  let text = `${first}${middle} ${last}`;
  if (style === 'upper') text = text.toUpperCase();
  if (style === 'surname_first') text = `${last}, ${first}${middle}`;
  return { text, expected: text };
}

const EMPLOYERS = ['Acme Payroll Services, Inc.', 'Northwind Traders LLC', 'Globex Corporation', 'Initech', 'Umbrella Health Partners',
  'Blue Ridge Logistics Co.', 'Riverside Medical Center', 'Summit Software Ltd', 'Green Valley School District', 'Pioneer Foods',
  'Harbor Freight Lines', 'Stark Manufacturing', 'Wayne Enterprises', 'Cascade Dental Group', 'Metro Transit Authority',
  'Bright Horizons Childcare', 'Oakwood Construction', 'Silverline Hotels', 'Redwood Credit Union', 'Lakeside Pharmacy'];

export function employer(rng: Rng): Printed {
  const text = rng.pick(EMPLOYERS);
  return { text, expected: text };
}

export const UTILITIES = ['City Power & Light', 'Metro Water Services', 'Evergreen Energy', 'Northern Gas Co.', 'Bright Electric',
  'Riverbend Utilities', 'Thames Water', 'British Gas', 'Octopus Energy', 'Coastal Water Authority'];

const STREETS = ['Oak', 'Maple', 'Cedar', 'Elm', 'Pine', 'Washington', 'Lake', 'Hill', 'Park', 'Main', 'Church', 'Station', 'Mill', 'Highland', 'Sunset', 'Willow'];
const US_SUFFIX = ['Street', 'St', 'Avenue', 'Ave', 'Road', 'Rd', 'Lane', 'Drive', 'Dr', 'Court', 'Way', 'Boulevard'];
const UK_SUFFIX = ['Street', 'Road', 'Lane', 'Close', 'Avenue', 'Crescent', 'Gardens', 'Terrace'];
const US_CITIES: Array<[string, string, string]> = [['Springfield', 'IL', '627'], ['Portland', 'OR', '972'], ['Austin', 'TX', '787'], ['Columbus', 'OH', '432'],
  ['Madison', 'WI', '537'], ['Denver', 'CO', '802'], ['Raleigh', 'NC', '276'], ['Boise', 'ID', '837'], ['Albany', 'NY', '122'], ['Tucson', 'AZ', '857']];
const UK_CITIES: Array<[string, string]> = [['London', 'SW1A'], ['Manchester', 'M1'], ['Leeds', 'LS1'], ['Bristol', 'BS1'], ['Edinburgh', 'EH1'], ['Cardiff', 'CF10']];

/** An address as printed lines; the expected value is the lines joined with ", ". */
export function address(rng: Rng, locale: Locale): { lines: string[]; expected: string } {
  let lines: string[];
  if (locale === 'us') {
    const street = `${rng.int(1, 9899)} ${rng.pick(STREETS)} ${rng.pick(US_SUFFIX)}`;
    const [city, state, zip3] = rng.pick(US_CITIES);
    const zip = `${zip3}${String(rng.int(0, 99)).padStart(2, '0')}${rng.chance(0.15) ? `-${rng.int(1000, 9999)}` : ''}`;
    const unit = rng.chance(0.3) ? rng.pick([`Apt ${rng.int(1, 40)}${rng.pick(['', 'A', 'B'])}`, `Unit ${rng.int(1, 300)}`, `Suite ${rng.int(100, 900)}`]) : undefined;
    const cityLine = `${city}, ${state} ${zip}`;
    if (unit && rng.chance(0.5)) lines = [street, unit, cityLine];
    else if (unit) lines = [`${street}, ${unit}`, cityLine];
    else lines = [street, cityLine];
  } else {
    const [city, district] = rng.pick(UK_CITIES);
    const postcode = `${district} ${rng.int(1, 9)}${rng.pick(['AA', 'BD', 'EX', 'HJ', 'NP', 'TU', 'WZ'])}`;
    const street = `${rng.int(1, 250)} ${rng.pick(STREETS)} ${rng.pick(UK_SUFFIX)}`;
    const flat = rng.chance(0.3) ? `Flat ${rng.int(1, 30)}` : undefined;
    const base = flat ? [flat, street] : [street];
    lines = rng.chance(0.5) ? [...base, city, postcode] : [...base, `${city} ${postcode}`];
  }
  return { lines, expected: lines.join(', ') };
}

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

export interface DateParts { readonly year: number; readonly month: number; readonly day: number; }

export function randomDate(rng: Rng): DateParts {
  const start = Date.UTC(2024, 0, 1);
  const end = Date.UTC(2026, 11, 31);
  const at = new Date(start + Math.floor(rng.next() * ((end - start) / 86_400_000)) * 86_400_000);
  return { year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate() };
}

export function isoDate(d: DateParts): string {
  return `${d.year}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
}

/**
 * A date in one of the ways documents print them. `us` documents write numeric dates month first,
 * `uk` documents day first — so an ambiguous `uk` date is read right only when the document's other
 * dates settle the order, exactly the situation extraction faces in production.
 */
export function formatDate(rng: Rng, d: DateParts, locale: Locale): string {
  const mm = String(d.month).padStart(2, '0');
  const dd = String(d.day).padStart(2, '0');
  const month = MONTH_NAMES[d.month - 1]!;
  const mon = month.slice(0, 3);
  const numeric = locale === 'us'
    ? rng.pick([`${mm}/${dd}/${d.year}`, `${d.month}/${d.day}/${d.year}`, `${mm}-${dd}-${d.year}`])
    : rng.pick([`${dd}/${mm}/${d.year}`, `${dd}.${mm}.${d.year}`, `${d.day}/${d.month}/${d.year}`]);
  const written = locale === 'us'
    ? rng.pick([`${month} ${d.day}, ${d.year}`, `${mon} ${d.day}, ${d.year}`, `${mon}. ${d.day} ${d.year}`, `${mon} ${dd} ${d.year}`])
    : rng.pick([`${d.day} ${month} ${d.year}`, `${dd}-${mon}-${d.year}`, `${d.day} ${mon} ${d.year}`]);
  return rng.weighted([[numeric, 50], [written, 35], [isoDate(d), 15]] as const);
}

export function date(rng: Rng, locale: Locale): Printed & { parts: DateParts } {
  const parts = randomDate(rng);
  return { text: formatDate(rng, parts, locale), expected: isoDate(parts), parts };
}

function group(integer: number, separator: string): string {
  return String(integer).replace(/\B(?=(\d{3})+(?!\d))/g, separator);
}

/** An amount with cents in a printed style; the expected value is "1234.56". */
export function money(rng: Rng, locale: Locale, min = 600, max = 9500): Printed & { amount: number } {
  const cents = rng.int(min * 100, max * 100);
  const integer = Math.floor(cents / 100);
  const fraction = String(cents % 100).padStart(2, '0');
  const expected = `${integer}.${fraction}`;
  const symbol = locale === 'us' ? '$' : '£';
  const code = locale === 'us' ? 'USD' : 'GBP';
  const text = rng.weighted([
    [`${symbol}${group(integer, ',')}.${fraction}`, 55],
    [`${symbol}${integer}.${fraction}`, 10],
    [`${code} ${group(integer, ',')}.${fraction}`, 10],
    [`${group(integer, ',')}.${fraction} ${code}`, 8],
    [`${symbol} ${group(integer, ',')}.${fraction}`, 7],
    [`${group(integer, ',')}.${fraction}`, 5],
    // Continental style only on `uk` (non-US) documents: a € amount is itself a day-first signal.
    [locale === 'uk' ? `${group(integer, '.')},${fraction} €` : `${symbol}${group(integer, ',')}.${fraction}`, 5],
  ] as const);
  return { text, expected, amount: cents / 100 };
}

export function formatMoney(rng: Rng, amount: number, locale: Locale): string {
  const cents = Math.round(amount * 100);
  const symbol = locale === 'us' ? '$' : '£';
  return `${symbol}${group(Math.floor(cents / 100), ',')}.${String(cents % 100).padStart(2, '0')}`;
}
