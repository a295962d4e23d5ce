import type { Rng } from './prng.ts';

/** Values for generated documents: what is printed, and what extraction must return for it. */
export interface Printed { readonly text: string; readonly expected: string; }

/** Conventions of nine countries: US, UK, Ireland, France, Germany, Portugal, Denmark, India, UAE. */
export const LOCALES = ['us', 'uk', 'ie', 'fr', 'de', 'pt', 'dk', 'in', 'ae'] as const;
/**
 * Issue 28 adds Polish, Dutch, Spanish, Italian and Swedish conventions: fourteen locales. The
 * families written before draw from the first nine only, so their documents stay as they were.
 */
export const ALL_LOCALES = [...LOCALES, 'pl', 'nl', 'es', 'it', 'se'] as const;
export type Locale = (typeof ALL_LOCALES)[number];

interface LocaleConventions {
  /** Currency symbol and code, whether the symbol follows the amount, and the group/decimal marks. */
  readonly symbol: string;
  readonly code: string;
  readonly symbolAfter: boolean;
  readonly group: string;
  readonly decimal: string;
  /** Month names as printed in day-first written dates (English for en locales). */
  readonly months: readonly string[];
  /** "14 de março de 2026", "14. März 2026", "14 mars 2026". */
  readonly written: (day: number, month: string, year: number) => string;
  /** Other group marks the locale uses besides `group` (a thin space in Polish and Swedish print). */
  readonly groups?: readonly string[];
}

const EN_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const CONVENTIONS: Record<Exclude<Locale, 'us' | 'uk'>, LocaleConventions> = {
  ie: { symbol: '€', code: 'EUR', symbolAfter: false, group: ',', decimal: '.', months: EN_MONTHS, written: (d, m, y) => `${d} ${m} ${y}` },
  fr: { symbol: '€', code: 'EUR', symbolAfter: true, group: ' ', decimal: ',', months: ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'], written: (d, m, y) => `${d} ${m} ${y}` },
  de: { symbol: '€', code: 'EUR', symbolAfter: true, group: '.', decimal: ',', months: ['Januar', 'Februar', 'März', 'April', 'Mai', 'Juni', 'Juli', 'August', 'September', 'Oktober', 'November', 'Dezember'], written: (d, m, y) => `${d}. ${m} ${y}` },
  pt: { symbol: '€', code: 'EUR', symbolAfter: true, group: '.', decimal: ',', months: ['janeiro', 'fevereiro', 'março', 'abril', 'maio', 'junho', 'julho', 'agosto', 'setembro', 'outubro', 'novembro', 'dezembro'], written: (d, m, y) => `${d} de ${m} de ${y}` },
  dk: { symbol: 'kr.', code: 'DKK', symbolAfter: true, group: '.', decimal: ',', months: ['januar', 'februar', 'marts', 'april', 'maj', 'juni', 'juli', 'august', 'september', 'oktober', 'november', 'december'], written: (d, m, y) => `${d}. ${m} ${y}` },
  in: { symbol: 'Rs.', code: 'INR', symbolAfter: false, group: ',', decimal: '.', months: EN_MONTHS, written: (d, m, y) => `${d} ${m} ${y}` },
  ae: { symbol: 'AED', code: 'AED', symbolAfter: false, group: ',', decimal: '.', months: EN_MONTHS, written: (d, m, y) => `${d} ${m} ${y}` },
  // Polish months in the genitive, as dates print them ("14 marca 2026 r.").
  pl: { symbol: 'PLN', code: 'PLN', symbolAfter: true, group: ' ', groups: ['\u00a0', '.'], decimal: ',', months: ['stycznia', 'lutego', 'marca', 'kwietnia', 'maja', 'czerwca', 'lipca', 'sierpnia', 'września', 'października', 'listopada', 'grudnia'], written: (d, m, y) => `${d} ${m} ${y}${d % 2 === 0 ? ' r.' : ''}` },
  nl: { symbol: '€', code: 'EUR', symbolAfter: false, group: '.', decimal: ',', months: ['januari', 'februari', 'maart', 'april', 'mei', 'juni', 'juli', 'augustus', 'september', 'oktober', 'november', 'december'], written: (d, m, y) => `${d} ${m} ${y}` },
  es: { symbol: '€', code: 'EUR', symbolAfter: true, group: '.', decimal: ',', months: ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'], written: (d, m, y) => `${d} de ${m} de ${y}` },
  it: { symbol: '€', code: 'EUR', symbolAfter: true, group: '.', decimal: ',', months: ['gennaio', 'febbraio', 'marzo', 'aprile', 'maggio', 'giugno', 'luglio', 'agosto', 'settembre', 'ottobre', 'novembre', 'dicembre'], written: (d, m, y) => `${d} ${m} ${y}` },
  se: { symbol: 'kr', code: 'SEK', symbolAfter: true, group: ' ', groups: ['\u00a0'], decimal: ',', months: ['januari', 'februari', 'mars', 'april', 'maj', 'juni', 'juli', 'augusti', 'september', 'oktober', 'november', 'december'], written: (d, m, y) => `${d} ${m} ${y}` },
};

const LOCAL_FIRST: Partial<Record<Locale, string[]>> = {
  fr: ['Amélie', 'François', 'Hélène', 'Jérôme', 'Océane', 'Benoît'],
  de: ['Jürgen', 'Käthe', 'Björn', 'Lukas', 'Mareike', 'Sönke'],
  pt: ['João', 'Inês', 'Conceição', 'Tiago', 'Leonor', 'Gonçalo'],
  dk: ['Søren', 'Mette', 'Ærling', 'Frederik', 'Sofie', 'Jørgen'],
  in: ['Priya', 'Arjun', 'Lakshmi', 'Rohan', 'Ananya', 'Vikram'],
  ae: ['Fatima', 'Omar', 'Aisha', 'Khalid', 'Mariam', 'Yousef'],
  ie: ['Siobhán', 'Seán', 'Aoife', 'Niamh', 'Ciarán', 'Órla'],
  pl: ['Agnieszka', 'Krzysztof', 'Zofia', 'Wojciech', 'Jadwiga', 'Bartosz'],
  nl: ['Sanne', 'Joost', 'Femke', 'Pieter', 'Lotte', 'Bram'],
  es: ['Lucía', 'Álvaro', 'Begoña', 'Íñigo', 'Nuria', 'Sergio'],
  it: ['Giulia', 'Niccolò', 'Chiara', 'Lorenzo', 'Francesca', 'Matteo'],
  se: ['Åsa', 'Björn', 'Linnéa', 'Örjan', 'Maja', 'Henrik'],
};
const LOCAL_LAST: Partial<Record<Locale, string[]>> = {
  fr: ['Lefèvre', 'Dubois', 'Girard', 'Mercier', 'Bélanger'],
  de: ['Müller', 'Schröder', 'Weiß', 'Becker', 'Köhler'],
  pt: ['Brandão', 'Gonçalves', 'Simões', 'Araújo', 'Conceição'],
  dk: ['Sørensen', 'Jørgensen', 'Nielsen', 'Kjærgaard', 'Østergaard'],
  in: ['Sharma', 'Iyer', 'Reddy', 'Nair', 'Chatterjee'],
  ae: ['Al Mansoori', 'Al Nuaimi', 'Haddad', 'Al Falasi', 'Khoury'],
  ie: ['Ó Briain', 'Murphy', 'Ní Bhriain', 'Kennedy', 'Byrne'],
  pl: ['Wróblewska', 'Nowak', 'Kowalczyk', 'Wójcik', 'Kaczmarek'],
  nl: ['de Vries', 'Bakker', 'van Dijk', 'Visser', 'Smit'],
  es: ['Muñoz', 'Ibáñez', 'Castaño', 'Ortega', 'Peña'],
  it: ['Esposito', 'Bianchi', 'Ferrari', 'Colombo', 'Ricci'],
  se: ['Lindström', 'Åkesson', 'Bergqvist', 'Öberg', 'Nyström'],
};

const FIRST = ['James', 'Mary', 'Robert', 'Patricia', 'John', 'Jennifer', 'Michael', 'Linda', 'David', 'Elizabeth', 'William', 'Barbara',
  'Richard', 'Susan', 'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Charles', 'Karen', 'Daniel', 'Lisa', 'Matthew', 'Margaret', 'Anthony',
  'Sandra', 'Priya', 'Wei', 'Fatima', 'Carlos', 'Aisha', 'Olusegun', 'Siobhan', 'Bill', 'Grace', 'Mateo', 'Hannah', 'Yusuf', 'Chloe', 'Ines'];
const LAST = ['Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez', 'Hernandez',
  'Lopez', 'Wilson', 'Anderson', 'Taylor', 'Moore', 'Jackson', 'Martin', 'Lee', 'Perez', 'Thompson', 'White', 'Harris', "O'Brien",
  'McDonald', 'Smith-Jones', 'van der Berg', 'Nguyen', 'Okafor', 'Kowalski', "D'Angelo", 'MacLeod', 'Fitzgerald', 'Page', 'Price'];

/** A person's name; the expected value is the printed text (extraction keeps names as written). */
export function personName(rng: Rng, locale: Locale = 'us'): Printed {
  const local = LOCAL_FIRST[locale] && rng.chance(0.7);
  const first = local ? rng.pick(LOCAL_FIRST[locale]!) : rng.pick(FIRST);
  const last = local ? rng.pick(LOCAL_LAST[locale]!) : rng.pick(LAST);
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
  const n = () => rng.int(1, 120);
  const oneOrTwo = (street: string, city: string) => (rng.chance(0.5) ? [street, city] : [`${street}, ${city}`]);
  if (locale === 'ie') {
    const [city, key] = rng.pick([['Dublin', 'D02'], ['Cork', 'T12'], ['Galway', 'H91'], ['Limerick', 'V94']] as const);
    const eircode = `${key} ${rng.pick(['X285', 'F6P2', 'K7W3', 'R2T8'])}`;
    lines = rng.chance(0.5) ? [`${n()} ${rng.pick(STREETS)} ${rng.pick(UK_SUFFIX)}`, city, eircode] : [`${n()} ${rng.pick(STREETS)} ${rng.pick(UK_SUFFIX)}`, `${city} ${eircode}`];
  } else if (locale === 'fr') {
    lines = oneOrTwo(`${n()} ${rng.pick(['rue de la Paix', 'avenue Victor Hugo', 'boulevard Voltaire', 'rue Lepic'])}`, `${rng.pick(['75008 Paris', '69002 Lyon', '13001 Marseille', '31000 Toulouse'])}`);
  } else if (locale === 'de') {
    lines = oneOrTwo(`${rng.pick(['Hauptstraße', 'Bahnhofstraße', 'Lindenweg', 'Goethestraße', 'Marktplatz'])} ${n()}`, rng.pick(['10115 Berlin', '80331 München', '20095 Hamburg', '50667 Köln']));
  } else if (locale === 'pt') {
    lines = oneOrTwo(`${rng.pick(['Rua Augusta', 'Avenida da Liberdade', 'Rua de Santa Catarina', 'Travessa do Carmo'])} ${n()}`, rng.pick(['1200-195 Lisboa', '4000-322 Porto', '3000-150 Coimbra', '8000-079 Faro']));
  } else if (locale === 'dk') {
    lines = oneOrTwo(`${rng.pick(['Vesterbrogade', 'Nørrebrogade', 'Strandvejen', 'Algade'])} ${n()}`, rng.pick(['1165 København K', '8000 Aarhus C', '5000 Odense C', '9000 Aalborg']));
  } else if (locale === 'in') {
    lines = [`${n()} ${rng.pick(['MG Road', 'Park Street', 'Linking Road', 'Anna Salai'])}`, rng.pick(['Indiranagar', 'Bandra West', 'T. Nagar', 'Salt Lake']), rng.pick(['Bengaluru 560001', 'Mumbai 400050', 'Chennai 600017', 'Kolkata 700091'])];
  } else if (locale === 'ae') {
    lines = [rng.pick([`Villa ${n()}, Al Wasl Road`, `Office ${n()}, Sheikh Zayed Road`, `Apartment ${n()}, Marina Walk`]), rng.pick(['Dubai', 'Abu Dhabi', 'Sharjah'])];
  } else if (locale === 'pl') {
    const street = `${rng.pick(['ul.', 'ul.', 'al.'])} ${rng.pick(['Piotrkowska', 'Mickiewicza', 'Sienkiewicza', 'Grunwaldzka', 'Mokotowska'])} ${n()}${rng.chance(0.5) ? `/${rng.int(1, 40)}` : ''}`;
    lines = oneOrTwo(street, rng.pick(['81-374 Gdynia', '90-926 Lublin', '31-042 Kraków', '00-950 Warszawa', '40-098 Katowice']));
  } else if (locale === 'nl') {
    lines = oneOrTwo(`${rng.pick(['Keizersgracht', 'Oudegracht', 'Kerkstraat', 'Stationsplein', 'Biltstraat', 'Wilhelminalaan'])} ${n()}${rng.chance(0.2) ? rng.pick(['A', '-2', ' hs']) : ''}`, rng.pick(['1015 CS Amsterdam', '3511 NH Utrecht', '2513 AB Den Haag', '3011 GD Rotterdam', '9711 LM Groningen']));
  } else if (locale === 'es') {
    const floor = rng.chance(0.6) ? `, ${rng.int(1, 8)}º ${rng.pick(['A', 'B', 'C', 'izda.', 'dcha.'])}` : '';
    lines = oneOrTwo(`${rng.pick(['C/ Mayor', 'C/ del Carme', 'Avda. de la Constitución', 'Calle Alcalá', 'Pza. de España'])} ${n()}${floor}`, rng.pick(['28013 Madrid', '08001 Barcelona', '41004 Sevilla', '46002 Valencia', '48005 Bilbao']));
  } else if (locale === 'it') {
    lines = oneOrTwo(`${rng.pick(['Via Garibaldi', 'Corso Vittorio Emanuele', 'Piazza Navona', 'Viale Monza', 'Via dei Mille'])} ${n()}`, rng.pick(['00184 Roma', '20121 Milano', '16124 Genova', '50122 Firenze', '80133 Napoli']));
  } else if (locale === 'se') {
    lines = oneOrTwo(`${rng.pick(['Storgatan', 'Drottninggatan', 'Kungsgatan', 'Sveavägen', 'Linnégatan'])} ${n()}`, rng.pick(['114 51 Stockholm', '411 19 Göteborg', '211 22 Malmö', '753 20 Uppsala', '582 24 Linköping']));
  } else if (locale === 'us') {
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
  if (locale !== 'us' && locale !== 'uk') {
    const c = CONVENTIONS[locale];
    const dd2 = String(d.day).padStart(2, '0');
    const mm2 = String(d.month).padStart(2, '0');
    const numeric2 = rng.pick([`${dd2}/${mm2}/${d.year}`, `${dd2}.${mm2}.${d.year}`, `${dd2}-${mm2}-${d.year}`]);
    // The text PDFs draw with the standard fonts (WinAnsi): a month name they cannot encode
    // ("września") is printed the numeric way instead (see docs/decisions.md, issue 28).
    const name = c.months[d.month - 1]!;
    const written = /^[\u0020-\u00ff]*$/.test(name) ? c.written(d.day, name, d.year) : numeric2;
    return rng.weighted([[numeric2, 50], [written, 35], [isoDate(d), 15]] as const);
  }
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
  if (locale !== 'us' && locale !== 'uk') return { text: localMoney(rng, cents, locale), expected, amount: cents / 100 };
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

function localMoney(rng: Rng, cents: number, locale: Exclude<Locale, 'us' | 'uk'>): string {
  const c = CONVENTIONS[locale];
  const integer = Math.floor(cents / 100);
  const fraction = String(cents % 100).padStart(2, '0');
  const grouped = locale === 'in' && integer >= 100000
    ? `${String(Math.floor(integer / 1000)).replace(/\B(?=(\d{2})+(?!\d))/g, ',')},${String(integer % 1000).padStart(3, '0')}`
    : group(integer, c.groups && rng.chance(0.4) ? rng.pick(c.groups) : c.group);
  const number = `${grouped}${c.decimal}${fraction}`;
  const symbol = rng.chance(0.3) ? c.code : c.symbol;
  return c.symbolAfter ? `${number} ${symbol}` : `${symbol}${symbol.length > 1 ? ' ' : ''}${number}`;
}

export function formatMoney(rng: Rng, amount: number, locale: Locale): string {
  const cents = Math.round(amount * 100);
  if (locale !== 'us' && locale !== 'uk') return localMoney(rng, cents, locale);
  const symbol = locale === 'us' ? '$' : '£';
  return `${symbol}${group(Math.floor(cents / 100), ',')}.${String(cents % 100).padStart(2, '0')}`;
}

/** A valid IBAN (ISO 13616 check digits) for the locale's country, printed in groups of four. */
export function iban(rng: Rng, locale: Locale): Printed {
  const [country, length] = ({ uk: ['GB', 22], ie: ['IE', 22], fr: ['FR', 27], de: ['DE', 22], pt: ['PT', 25], dk: ['DK', 18], ae: ['AE', 23], pl: ['PL', 28], nl: ['NL', 18], es: ['ES', 24], it: ['IT', 27], se: ['SE', 24] } as Record<string, [string, number]>)[locale] ?? ['DE', 22];
  const bank = country === 'GB' || country === 'IE' ? rng.pick(['NWBK', 'BARC', 'AIBK', 'BOFI']) : country === 'NL' ? rng.pick(['ABNA', 'INGB', 'RABO']) : country === 'IT' ? rng.pick(['X', 'K', 'T']) : '';
  let bban = bank;
  while (bban.length < length - 4) bban += String(rng.int(0, 9));
  const numeric = (bban + country + '00').replace(/[A-Z]/g, (ch) => String(ch.charCodeAt(0) - 55));
  let remainder = 0;
  for (const digit of numeric) remainder = (remainder * 10 + Number(digit)) % 97;
  const compact = `${country}${String(98 - remainder).padStart(2, '0')}${bban}`;
  const text = rng.chance(0.8) ? compact.replace(/(.{4})(?=.)/g, '$1 ') : compact;
  return { text, expected: compact };
}

/** An account identifier as the locale prints it: a sort code and account (UK), a plain account number (US, India), else an IBAN. */
export function accountNumber(rng: Rng, locale: Locale): Printed {
  if (locale === 'uk' && rng.chance(0.5)) {
    const text = `${rng.int(10, 99)}-${rng.int(10, 99)}-${rng.int(10, 99)} ${rng.int(10000000, 99999999)}`;
    return { text, expected: text };
  }
  if (locale === 'us' || locale === 'in') {
    const text = rng.chance(0.5) ? `${rng.int(1000, 9999)} ${rng.int(1000, 9999)} ${rng.int(1000, 9999)}` : String(rng.int(100000000, 999999999));
    return { text, expected: text };
  }
  return iban(rng, locale);
}
