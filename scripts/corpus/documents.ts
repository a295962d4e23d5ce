import { ALL_DOCUMENT_KINDS, FACTS_BY_KIND, type DocumentKind } from './case-types.ts';
import type { Rng } from './prng.ts';
import { accountNumber, address, ALL_LOCALES, date, employer, formatDate, formatMoney, isoDate, LOCALES, money, personName, randomDate, UTILITIES, type Locale } from './values.ts';

/**
 * Logical documents: rows of positioned cells plus the ground truth, independent of the file
 * format they are rendered to (render.ts). x is in PDF points from the left page edge.
 */
export interface Cell { readonly text: string; readonly x: number; }
export type Block =
  | { readonly kind: 'title'; readonly text: string }
  | { readonly kind: 'row'; readonly cells: readonly Cell[] }
  | { readonly kind: 'blank' };

export type Layout = 'inline' | 'next_line' | 'kv_table' | 'side_by_side' | 'header_table';

export const LAYOUTS: readonly Layout[] = ['inline', 'next_line', 'kv_table', 'side_by_side', 'header_table'];
/** How labels are printed: as the anchors come (any case, mostly with a colon), or in capitals with no colon. */
export const LABEL_STYLES = ['mixed', 'caps_bare'] as const;
export type LabelStyle = (typeof LABEL_STYLES)[number];

/**
 * A layout is a family's arrangement of fields (body layout × label style): 5 families × 5 × 2 =
 * 50 layouts. Half of each family's layouts are held out: extraction is tuned on the others only,
 * and the evaluation reports the held-out half separately.
 */
export function layoutId(kind: DocumentKind, layout: Layout, style: LabelStyle): { id: string; heldOut: boolean } {
  const parity = ALL_DOCUMENT_KINDS.indexOf(kind) + LAYOUTS.indexOf(layout) + LABEL_STYLES.indexOf(style);
  return { id: `${kind}/${layout}/${style}`, heldOut: parity % 2 === 1 };
}

export interface LogicalDocument {
  readonly id: string;
  readonly kind: DocumentKind;
  readonly locale: Locale;
  readonly layout: Layout;
  readonly labelStyle: LabelStyle;
  /** `kind/layout/labelStyle`, and whether that layout is in the held-out half. */
  readonly layoutId: string;
  readonly heldOut: boolean;
  readonly blocks: readonly Block[];
  /** fact_id → expected value, or null when the document deliberately lacks the fact. */
  readonly truth: Readonly<Record<string, string | null>>;
}

const LEFT = 50;
const VALUE_X = 215;
const RIGHT = 315;
const TABLE_X = [50, 210, 345, 460];

/** A label as documents print it: one of the fact's anchors, in some case, with some separator. */
let currentStyle: LabelStyle = 'mixed';

function label(rng: Rng, factId: string, kind: DocumentKind, separator: 'any' | 'colon_or_none'): string {
  const fact = FACTS_BY_KIND[kind].find((f) => f.fact_id === factId)!;
  let text = rng.pick(fact.anchors);
  if (currentStyle === 'caps_bare') return text.toUpperCase();
  const style = rng.weighted([['as_is', 55], ['title', 25], ['upper', 20]] as const);
  if (style === 'title') text = text.replace(/\b\p{L}/gu, (c) => c.toUpperCase());
  if (style === 'upper') text = text.toUpperCase();
  const sep = separator === 'any'
    ? rng.weighted([[':', 75], ['', 12], [' :', 5], [' -', 4], ['#', 0], [' =', 0], ['.', 4]] as const)
    : rng.weighted([[':', 80], ['', 20]] as const);
  return text + sep;
}

interface Field {
  readonly factId: string;
  /** Value lines (addresses may have several). */
  readonly lines: readonly string[];
}

function row(...cells: Cell[]): Block {
  return { kind: 'row', cells };
}

/** Noise rows: text with no anchors of the document's facts at a label start (look-alikes only). */
function payStubNoise(rng: Rng, locale: Locale, payDate: { year: number; month: number; day: number }, gross: number): string[][] {
  const d = (offset: number) => {
    const at = new Date(Date.UTC(payDate.year, payDate.month - 1, payDate.day + offset));
    return formatDate(rng, { year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate() }, locale);
  };
  const net = gross * (0.68 + rng.next() * 0.12);
  return rng.shuffle([
    ['Employee ID:', String(rng.int(10000, 99999))],
    ['Employer ID:', `${rng.int(10, 99)}-${rng.int(1000000, 9999999)}`],
    ['Company code:', `${rng.pick(['AB', 'KX', 'PR', 'TQ'])}${rng.int(10, 99)}`],
    ['Pay period:', `${d(-14)} - ${d(-1)}`],
    ['Pay frequency:', rng.pick(['Biweekly', 'Weekly', 'Semi-monthly', 'Monthly'])],
    ['Net pay:', formatMoney(rng, net, locale)],
    ['YTD gross pay:', formatMoney(rng, gross * rng.int(3, 20), locale)],
    ['Gross pay YTD:', formatMoney(rng, gross * rng.int(3, 20), locale)],
    ['Federal tax:', formatMoney(rng, gross * 0.12, locale)],
    ['Check number:', String(rng.int(100000, 999999))],
    ['Department:', rng.pick(['Logistics', 'Nursing', 'Engineering', 'Sales', 'Facilities'])],
    ['Direct deposit:', `****${rng.int(1000, 9999)}`],
    ['Previous pay date:', d(-14)],
  ]).slice(0, rng.int(3, 6));
}

function billNoise(rng: Rng, locale: Locale, statement: { year: number; month: number; day: number }): string[][] {
  const d = (offset: number) => {
    const at = new Date(Date.UTC(statement.year, statement.month - 1, statement.day + offset));
    return formatDate(rng, { year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate() }, locale);
  };
  const amount = 40 + rng.next() * 300;
  return rng.shuffle([
    ['Account number:', `${rng.int(1000, 9999)}-${rng.int(1000, 9999)}-${rng.int(10, 99)}`],
    ['Customer number:', String(rng.int(100000, 999999))],
    ['Statement period:', `${d(-31)} - ${d(-1)}`],
    ['Previous statement date:', d(-30)],
    ['Due date:', d(rng.int(14, 25))],
    ['Amount due:', formatMoney(rng, amount, locale)],
    ['Previous balance:', formatMoney(rng, amount * 0.9, locale)],
    ['Meter number:', String(rng.int(10000000, 99999999))],
    ['Usage:', `${rng.int(120, 1400)} kWh`],
    ['Mailing address:', `PO Box ${rng.int(100, 9999)}, ${rng.pick(['Springfield, IL 62701', 'Denver, CO 80202', 'Leeds LS1 4DY'])}`],
    ['Tariff:', rng.pick(['Standard Variable', 'Residential R1', 'Fixed Saver 12M'])],
  ]).slice(0, rng.int(3, 6));
}

export function generateDocument(rng: Rng, kind: DocumentKind, index: number): LogicalDocument {
  // The first two families keep their US/UK mix; every family also draws from all nine locales.
  const locale: Locale = kind === 'pay_stub' || kind === 'utility_bill'
    ? (rng.chance(0.5) ? rng.pick(LOCALES) : rng.chance(kind === 'utility_bill' ? 0.3 : 0.2) ? 'uk' : 'us')
    : NEW_FAMILIES.includes(kind) ? rng.pick(ALL_LOCALES) : rng.pick(LOCALES);
  const layout = rng.weighted([['inline', 30], ['next_line', 15], ['kv_table', 20], ['side_by_side', 20], ['header_table', 15]] as const);
  const labelStyle: LabelStyle = rng.chance(0.3) ? 'caps_bare' : 'mixed';
  currentStyle = labelStyle;
  const truth: Record<string, string | null> = {};
  const fields: Field[] = [];
  const header: Block[] = [];
  let noise: string[][];

  if (kind !== 'pay_stub' && kind !== 'utility_bill') {
    const built = NEW_FAMILIES.includes(kind) ? newFamily(rng, kind, locale) : otherFamily(rng, kind as 'bank_statement' | 'invoice' | 'registration', locale);
    header.push(...built.header);
    fields.push(...built.fields);
    Object.assign(truth, built.truth);
    noise = built.noise;
  } else if (kind === 'pay_stub') {
    const person = personName(rng, locale);
    const company = employer(rng);
    const pay = date(rng, locale);
    const gross = money(rng, locale);
    const hasEmployer = rng.chance(0.85);
    header.push({ kind: 'title', text: rng.chance(0.5) ? company.text.toUpperCase() : company.text });
    header.push({ kind: 'title', text: rng.pick(['Earnings Statement', 'PAY STUB', 'Statement of Earnings', 'Payroll Advice']) });
    fields.push({ factId: 'employee_name', lines: [person.text] });
    truth.employee_name = person.expected;
    if (hasEmployer) fields.push({ factId: 'employer_name', lines: [company.text] });
    truth.employer_name = hasEmployer ? company.expected : null;
    fields.push({ factId: 'pay_date', lines: [pay.text] });
    truth.pay_date = pay.expected;
    fields.push({ factId: 'gross_pay', lines: [gross.text] });
    truth.gross_pay = gross.expected;
    noise = payStubNoise(rng, locale, pay.parts, gross.amount);
  } else {
    const person = personName(rng, locale);
    const place = address(rng, locale);
    const statement = date(rng, locale);
    header.push({ kind: 'title', text: rng.pick(UTILITIES) });
    header.push({ kind: 'title', text: rng.pick(['Your Energy Bill', 'WATER STATEMENT', 'Utility Bill', 'Monthly Statement']) });
    fields.push({ factId: 'holder_name', lines: [person.text] });
    truth.holder_name = person.expected;
    fields.push({ factId: 'service_address', lines: place.lines });
    truth.service_address = place.expected;
    fields.push({ factId: 'statement_date', lines: [statement.text] });
    truth.statement_date = statement.expected;
    noise = billNoise(rng, locale, statement.parts);
  }

  const body = layoutBody(rng, kind, layout, rng.shuffle(fields), noise);
  const blocks: Block[] = [...header, { kind: 'blank' }, ...body];
  if (rng.chance(0.5)) blocks.push({ kind: 'blank' }, row({ text: rng.pick(['Questions? Call 1-800-555-0199.', 'Please keep this statement for your records.', 'Thank you for your business.']), x: LEFT }));
  currentStyle = 'mixed';
  const { id: layoutName, heldOut } = layoutId(kind, layout, labelStyle);
  return { id: `${kind}-${String(index).padStart(4, '0')}`, kind, locale, layout, labelStyle, layoutId: layoutName, heldOut, blocks, truth };
}

/** Bank statements, invoices and company registrations: title lines, fields, truth and look-alike noise. */
function otherFamily(rng: Rng, kind: 'bank_statement' | 'invoice' | 'registration', locale: Locale) {
  const when = randomDate(rng);
  const d = (offset: number) => {
    const at = new Date(Date.UTC(when.year, when.month - 1, when.day + offset));
    return formatDate(rng, { year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate() }, locale);
  };
  const printedDate = { text: formatDate(rng, when, locale), expected: isoDate(when) };
  const fields: Field[] = [];
  const truth: Record<string, string | null> = {};
  const add = (factId: string, printed: { text?: string; lines?: readonly string[]; expected: string }) => {
    fields.push({ factId, lines: printed.lines ?? [printed.text!] });
    truth[factId] = printed.expected;
  };
  let header: Block[];
  let noise: string[][];
  if (kind === 'bank_statement') {
    header = [{ kind: 'title', text: rng.pick(['Northbank', 'Banco Atlântico', 'Nordisk Bank A/S', 'Crédit Riviera', 'Emirates Harbour Bank', 'Bharat Cooperative Bank']) }, { kind: 'title', text: rng.pick(['Account Statement', 'STATEMENT OF ACCOUNT', 'Current Account']) }];
    add('account_holder', personName(rng, locale));
    add('account_number', accountNumber(rng, locale));
    add('statement_date', printedDate);
    add('closing_balance', money(rng, locale, 100, 48000));
    noise = rng.shuffle([
      ['Opening balance:', formatMoney(rng, 500 + rng.next() * 9000, locale)],
      ['Statement period:', `${d(-30)} - ${d(-1)}`],
      ['BIC:', rng.pick(['NWBKGB2L', 'BCOMPTPL', 'DABADKKK', 'BNPAFRPP'])],
      ['Branch:', rng.pick(['Central', 'Harbour Street', 'Old Town'])],
      ['Customer number:', String(rng.int(100000, 999999))],
      ['Overdraft limit:', formatMoney(rng, 1000, locale)],
    ]).slice(0, rng.int(3, 5));
  } else if (kind === 'invoice') {
    header = [{ kind: 'title', text: rng.pick(['Lumen Studio SARL', 'Oakline Supplies Ltd', 'Fjord Design ApS', 'Tecnologias Norte Lda', 'Gulf Office Trading LLC']) }, { kind: 'title', text: rng.pick(['INVOICE', 'Tax Invoice', 'Invoice']) }];
    add('customer_name', personName(rng, locale));
    const number = rng.pick([`INV-${rng.int(2024, 2026)}-${rng.int(1000, 9999)}`, `F${rng.int(100000, 999999)}`, `${rng.int(2024, 2026)}/${rng.int(100, 999)}`]);
    add('invoice_number', { text: number, expected: number });
    add('invoice_date', printedDate);
    add('total_due', money(rng, locale, 50, 9000));
    noise = rng.shuffle([
      ['Subtotal:', formatMoney(rng, 40 + rng.next() * 7000, locale)],
      ['VAT:', formatMoney(rng, 10 + rng.next() * 900, locale)],
      ['Due date:', d(30)],
      ['Order number:', `PO-${rng.int(10000, 99999)}`],
      ['Payment terms:', rng.pick(['30 days', 'On receipt', '14 days net'])],
      ['VAT number:', `${rng.pick(['PT', 'FR', 'DE', 'DK', 'IE'])}${rng.int(100000000, 999999999)}`],
    ]).slice(0, rng.int(3, 5));
  } else {
    header = [{ kind: 'title', text: rng.pick(['Companies Registry', 'Certificate of Incorporation', 'Registo Comercial', 'Handelsregister']) }, { kind: 'title', text: rng.pick(['CERTIFICATE OF REGISTRATION', 'Extract from the Register', 'Registration Certificate']) }];
    const company = employer(rng);
    add('registered_name', company);
    const reg = rng.pick([`HRB ${rng.int(10000, 999999)}`, `${rng.int(10000000, 99999999)}`, `SC${rng.int(100000, 999999)}`, `U${rng.int(10000, 99999)}KA${rng.int(2000, 2024)}PTC${rng.int(100000, 999999)}`]);
    add('registration_number', { text: reg, expected: reg });
    const place = address(rng, locale);
    add('registered_address', { lines: place.lines, expected: place.expected });
    add('registration_date', printedDate);
    noise = rng.shuffle([
      ['Legal form:', rng.pick(['Private limited company', 'GmbH', 'Sociedade por quotas', 'ApS'])],
      ['Share capital:', formatMoney(rng, 25000, locale)],
      ['Status:', rng.pick(['Active', 'Registered'])],
      ['Date of this extract:', d(rng.int(30, 400))],
      ['Registrar:', rng.pick(['Registrar of Companies', 'Amtsgericht Charlottenburg', 'Conservatória do Registo Comercial'])],
    ]).slice(0, rng.int(3, 5));
  }
  return { header, fields, truth, noise };
}

const NEW_FAMILIES: readonly DocumentKind[] = ['insurance_schedule', 'tax_notice', 'employment_letter', 'tenancy_agreement'];

/** An identifier in spaced groups, as insurers and tax offices print them ("ZX 4410 7721 B"). */
function spacedReference(rng: Rng): { text: string; expected: string } {
  const letters = () => String.fromCharCode(65 + rng.int(0, 25), 65 + rng.int(0, 25));
  const digits = (n: number) => Array.from({ length: n }, () => String(rng.int(0, 9))).join('');
  const text = rng.pick([
    `${letters()} ${digits(4)} ${digits(4)} ${String.fromCharCode(65 + rng.int(0, 25))}`,
    `${letters()}-${digits(6)}/${rng.int(10, 99)}`,
    `${digits(3)} ${digits(3)} ${digits(3)}`,
    `${letters()}${digits(7)}`,
  ]);
  return { text, expected: text };
}

/** Issue 28's families: insurance schedules, tax notices, employment letters, tenancy agreements. */
function newFamily(rng: Rng, kind: DocumentKind, locale: Locale) {
  const when = randomDate(rng);
  const d = (offset: number) => {
    const at = new Date(Date.UTC(when.year, when.month - 1, when.day + offset));
    return formatDate(rng, { year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate() }, locale);
  };
  const printedDate = { text: formatDate(rng, when, locale), expected: isoDate(when) };
  const fields: Field[] = [];
  const truth: Record<string, string | null> = {};
  const add = (factId: string, printed: { text?: string; lines?: readonly string[]; expected: string }) => {
    fields.push({ factId, lines: printed.lines ?? [printed.text!] });
    truth[factId] = printed.expected;
  };
  const title = (...names: string[]): Block[] => names.map((text) => ({ kind: 'title', text }));
  let header: Block[];
  let noise: string[][];
  if (kind === 'insurance_schedule') {
    header = title(rng.pick(['Harbourline Mutual', 'Assicurazioni Tirreno', 'Ubezpieczenia Polonia', 'Veilig Verzekerd N.V.', 'Norrskydd Försäkring AB']), rng.pick(['POLICY SCHEDULE', 'Schedule of Insurance', 'Home Insurance Schedule']));
    add('policyholder', personName(rng, locale));
    add('policy_number', spacedReference(rng));
    add('premium', money(rng, locale, 120, 3400));
    add('cover_start', printedDate);
    noise = rng.shuffle([
      ['Premium (monthly):', formatMoney(rng, 10 + rng.next() * 280, locale)],
      ['End of cover:', d(364)],
      ['Excess (per claim):', formatMoney(rng, rng.pick([100, 250, 500]), locale)],
      ['Previous policy number:', spacedReference(rng).text],
      ['Sum insured:', formatMoney(rng, 50000 + rng.next() * 400000, locale)],
      ['Agent:', rng.pick(['Direct', 'Brokerline', 'Online'])],
    ]).slice(0, rng.int(3, 5));
  } else if (kind === 'tax_notice') {
    header = title(rng.pick(['Revenue Office', 'Krajowa Administracja Skarbowa', 'Agencia Tributaria', 'Belastingdienst', 'Skatteverket', 'Agenzia delle Entrate']), rng.pick(['NOTICE OF ASSESSMENT', 'Tax Assessment Notice', 'Demand for payment']));
    add('taxpayer', personName(rng, locale));
    add('tax_reference', spacedReference(rng));
    add('amount_payable', money(rng, locale, 40, 12000));
    add('notice_date', printedDate);
    noise = rng.shuffle([
      ['Tax year:', String(when.year - 1)],
      ['Pay by:', d(rng.int(21, 60))],
      ['Interest:', formatMoney(rng, 1 + rng.next() * 90, locale)],
      ['Tax office:', rng.pick(['Krakow-Podgorze', 'Madrid Centro', 'Utrecht', 'Stockholm Syd', 'Roma 1'])],
      ['Amount already paid:', formatMoney(rng, rng.next() * 4000, locale)],
      ['Payment reference:', `${rng.int(1000, 9999)} ${rng.int(1000, 9999)} ${rng.int(1000, 9999)}`],
    ]).slice(0, rng.int(3, 5));
  } else if (kind === 'employment_letter') {
    header = title(rng.pick(['Human Resources', 'Confirmation of Employment', 'To whom it may concern']), rng.pick(['EMPLOYMENT VERIFICATION', 'Certificate of Employment', 'Employment confirmation']));
    add('employee', personName(rng, locale));
    add('employer', employer(rng));
    add('employed_since', printedDate);
    add('salary', money(rng, locale, 18000, 140000));
    noise = rng.shuffle([
      ['Position:', rng.pick(['Senior Analyst', 'Nurse', 'Warehouse Lead', 'Teacher', 'Software Engineer'])],
      ['Contract type:', rng.pick(['Permanent', 'Fixed term', 'Full-time'])],
      ['Hours per week:', String(rng.pick([20, 32, 37.5, 40]))],
      ['Salary (monthly, net):', formatMoney(rng, 900 + rng.next() * 5000, locale)],
      ['Probation ends:', d(rng.int(90, 180))],
      ['Staff number:', String(rng.int(10000, 99999))],
    ]).slice(0, rng.int(3, 5));
  } else {
    header = title(rng.pick(['Residential Tenancy Agreement', 'Umowa najmu lokalu', 'Contrato de arrendamiento', 'Huurovereenkomst', 'Hyresavtal']), rng.pick(['TENANCY AGREEMENT', 'Lease summary', 'Particulars of the tenancy']));
    add('tenant', personName(rng, locale));
    const place = address(rng, locale);
    add('property_address', { lines: place.lines, expected: place.expected });
    add('monthly_rent', money(rng, locale, 350, 4200));
    add('tenancy_start', printedDate);
    noise = rng.shuffle([
      ['Landlord:', employer(rng).text],
      ['Deposit:', formatMoney(rng, 700 + rng.next() * 6000, locale)],
      ['Term:', rng.pick(['12 months', '24 months', 'Indefinite'])],
      ['Rent review date:', d(365)],
      ['Service charge (monthly):', formatMoney(rng, 20 + rng.next() * 200, locale)],
      ['Landlord address:', `PO Box ${rng.int(100, 9999)}`],
    ]).slice(0, rng.int(3, 5));
  }
  return { header, fields, truth, noise };
}

function layoutBody(rng: Rng, kind: DocumentKind, layout: Layout, fields: Field[], noise: string[][]): Block[] {
  // Noise rows are interleaved with the fields in the document's own style.
  const items: Array<{ field?: Field; noise?: string[] }> = rng.shuffle([...fields.map((field) => ({ field })), ...noise.map((n) => ({ noise: n }))]);
  const blocks: Block[] = [];
  const noiseRow = (n: string[], x = LEFT) => row({ text: `${n[0]} ${n[1]}`, x });

  if (layout === 'side_by_side') {
    // Two "label: value" cells per line; multi-line values continue under their first line.
    const left = items.filter((_, i) => i % 2 === 0);
    const right = items.filter((_, i) => i % 2 === 1);
    const column = (list: typeof items) => list.flatMap((item) => {
      if (item.noise) return [`${item.noise[0]} ${item.noise[1]}`];
      const f = item.field!;
      const text = label(rng, f.factId, kind, 'colon_or_none');
      return [`${text} ${f.lines[0]}`, ...f.lines.slice(1)];
    });
    const l = column(left);
    const r = column(right);
    for (let i = 0; i < Math.max(l.length, r.length); i++) {
      const cells: Cell[] = [];
      if (l[i]) cells.push({ text: l[i]!, x: LEFT });
      if (r[i]) cells.push({ text: r[i]!, x: RIGHT });
      blocks.push({ kind: 'row', cells });
    }
    return blocks;
  }

  if (layout === 'header_table') {
    // Up to three single-line fields as a table: labels in a header row, values below.
    const tabular = items.filter((i) => i.field && i.field.lines.length === 1).slice(0, 3);
    const columns = tabular.map((item, c) => ({ item, x: TABLE_X[c]! }));
    blocks.push(row(...columns.map(({ item, x }) => ({ text: label(rng, item.field!.factId, kind, 'colon_or_none').replace(/:$/, ''), x }))));
    blocks.push(row(...columns.map(({ item, x }) => ({ text: item.field!.lines[0]!, x }))));
    blocks.push({ kind: 'blank' });
    for (const item of items) {
      if (tabular.includes(item)) continue;
      if (item.noise) blocks.push(noiseRow(item.noise));
      else blocks.push(...fieldRows(rng, kind, item.field!, rng.pick(['inline', 'kv_table'] as const)));
    }
    return blocks;
  }

  for (const item of items) {
    if (item.noise) {
      blocks.push(layout === 'kv_table' ? row({ text: item.noise[0]!, x: LEFT }, { text: item.noise[1]!, x: VALUE_X }) : noiseRow(item.noise));
      continue;
    }
    // Mostly the document's layout, sometimes another one for the same field (real forms mix).
    const own = rng.chance(0.8) ? layout : rng.pick(['inline', 'next_line', 'kv_table'] as const);
    blocks.push(...fieldRows(rng, kind, item.field!, own as 'inline' | 'next_line' | 'kv_table'));
    if (layout === 'next_line' && rng.chance(0.5)) blocks.push({ kind: 'blank' });
  }
  return blocks;
}

function fieldRows(rng: Rng, kind: DocumentKind, field: Field, layout: 'inline' | 'next_line' | 'kv_table'): Block[] {
  const lines = field.lines;
  switch (layout) {
    case 'inline': {
      const text = label(rng, field.factId, kind, 'any');
      if (lines.length > 1 && rng.chance(0.5)) return [row({ text: `${text} ${lines.join(', ')}`, x: LEFT })];
      return [row({ text: `${text} ${lines[0]}`, x: LEFT }), ...lines.slice(1).map((l) => row({ text: l, x: LEFT }))];
    }
    case 'next_line': {
      const text = label(rng, field.factId, kind, 'colon_or_none');
      return [row({ text, x: LEFT }), ...lines.map((l) => row({ text: l, x: LEFT }))];
    }
    case 'kv_table': {
      const text = label(rng, field.factId, kind, 'colon_or_none');
      return [row({ text, x: LEFT }, { text: lines[0]!, x: VALUE_X }), ...lines.slice(1).map((l) => row({ text: l, x: VALUE_X }))];
    }
  }
}

export { randomDate };
