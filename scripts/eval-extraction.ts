/**
 * Accuracy harness for the document-to-facts pipeline: generates a seeded corpus of pay stubs and
 * utility bills (scripts/corpus), runs sniff → extract pages → extract facts on every document,
 * and prints precision, recall and F1 per field and format. Exits 1 when a goal is missed:
 * F1 ≥ 0.98 for each text format (PDF text layer, DOCX, plain) and ≥ 0.93 over the OCR formats.
 *
 *   npm run eval:extraction                      # 100 documents per text format, 150 scans
 *   npm run eval:extraction -- --size 200 --ocr 300   # more of each
 *   npm run eval:extraction -- --ocr 0 --verbose # text only, and print the tuned half's misses
 *   npm run eval:extraction -- --formats png,jpeg,pdf_scan --verbose   # scans only
 *   npm run eval:extraction -- --lofo --ocr 0    # leave one family out, per family and format, text only
 *   npm run eval:extraction -- --lofo --hold-out tax_notice --verbose   # tune without seeing tax notices
 *
 * Counting: a fact resolved to the expected value is a true positive; resolved to anything else
 * is a false positive (and, when a value was expected, also a false negative); not resolved
 * (needs_input / failed) where a value was expected is a false negative. Documents deliberately
 * lacking a fact (some pay stubs have no employer line) can only produce false positives.
 * Names, strings and addresses compare case-, space- and punctuation-insensitively; dates and
 * money compare exactly in their normalised form.
 */
import { parseArgs } from 'node:util';
import { createTesseractOcr, extractPages, sniffDocumentType } from '../src/domain/documents/index.ts';
import { extractFacts, type ExtractedFact } from '../src/domain/extraction/index.ts';
import { ALL_DOCUMENT_KINDS, FACTS_BY_KIND, type DocumentKind } from './corpus/case-types.ts';
import { generateCorpus } from './corpus/generate.ts';
import { createRng } from './corpus/prng.ts';
import { OCR_FORMATS, TEXT_FORMATS, type CorpusFormat } from './corpus/render.ts';

const TEXT_GOAL = 0.98;
const OCR_GOAL = 0.93;

const { values: args } = parseArgs({
  options: {
    size: { type: 'string' },
    ocr: { type: 'string' },
    seed: { type: 'string', default: '20260314' },
    verbose: { type: 'boolean', default: false },
    // Misses of the held-out half are hidden unless asked for: tuning looks at the tuned half only.
    misses: { type: 'string', default: 'tuned' },
    // Only documents of these formats (comma-separated), to iterate on one format faster.
    formats: { type: 'string' },
    // Only the layouts of one half (tuned | held-out), to iterate on the tuned half alone.
    split: { type: 'string' },
    // OCR engine settings to compare (Tesseract language codes joined by "+", page segmentation mode).
    languages: { type: 'string' },
    psm: { type: 'string' },
    // Only these families (comma-separated); default all nine.
    families: { type: 'string' },
    // Leave one family out: every family in turn is the unseen one, measured on all its layouts.
    lofo: { type: 'boolean', default: false },
    // While tuning under --lofo: the family held out, whose misses --verbose never prints.
    'hold-out': { type: 'string' },
  },
});
const textDocuments = args.size ? Number(args.size) : 100;
/**
 * 150 scans by default: about 75 fall in the held-out half, ~257 facts. With the 38 scans this
 * once was (75 held-out facts) one fact moved F1 by 1.3 % and the 95 % interval was ±5 %, too wide
 * to tell 0.93 from 0.90; at 150 it is about ±3 % (printed with the figure).
 */
const ocrDocuments = args.ocr ? Number(args.ocr) : 150;
const seed = Number(args.seed);
const onlyFormats = args.formats?.split(',');
const families = (args.families?.split(',') ?? [...ALL_DOCUMENT_KINDS]) as DocumentKind[];
if (families.some((f) => !(ALL_DOCUMENT_KINDS as readonly string[]).includes(f)) || (args['hold-out'] && !families.includes(args['hold-out'] as DocumentKind))) {
  process.stderr.write(`unknown family; families are ${ALL_DOCUMENT_KINDS.join(', ')}\n`);
  process.exit(2);
}
if (![textDocuments, ocrDocuments, seed].every((n) => Number.isInteger(n) && n >= 0) || !['tuned', 'held-out', 'all'].includes(args.misses)) {
  process.stderr.write('usage: eval-extraction [--size N] [--ocr N] [--seed N] [--formats png,jpeg,…] [--families a,b] [--split tuned|held-out] [--lofo [--hold-out FAMILY]] [--languages eng+fra] [--psm N] [--verbose [--misses tuned|held-out|all]]\n');
  process.exit(2);
}

interface Counts { tp: number; fp: number; fn: number; }
const counts = new Map<string, Counts>(); // `${format}|${field}`
/** The same counts split by layout half and family: `${split}|${family}|${format}`. */
const bySplit = new Map<string, Counts>();
let current = { split: 'tuned', family: '' };
/** Held-out scans' counts, one entry per document, for the interval of their F1. */
const heldOutScans: Counts[] = [];
let currentDocument: Counts | undefined;
/** Every document's counts with its family and format, for leave-one-family-out intervals. */
const perDocument: Array<{ family: string; format: string; counts: Counts }> = [];
let thisDocument: Counts = { tp: 0, fp: 0, fn: 0 };
const bump = (format: string, field: string, key: keyof Counts) => {
  const id = `${format}|${field}`;
  const c = counts.get(id) ?? { tp: 0, fp: 0, fn: 0 };
  c[key]++;
  counts.set(id, c);
  if (currentDocument) currentDocument[key]++;
  thisDocument[key]++;
  const splitId = `${current.split}|${current.family}|${format}`;
  const s = bySplit.get(splitId) ?? { tp: 0, fp: 0, fn: 0 };
  s[key]++;
  bySplit.set(splitId, s);
};

const comparable = (type: string, value: string) =>
  type === 'date' || type === 'money' || type === 'number' ? value : value.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

const ocr = createTesseractOcr({ languages: args.languages, pageSegMode: args.psm });
const started = performance.now();
const timeByFormat = new Map<CorpusFormat, { ms: number; documents: number }>();
const misses: string[] = [];
let documents = 0;

try {
  for await (const doc of generateCorpus({ seed, textDocuments, ocrDocuments, families })) {
    if (onlyFormats && !onlyFormats.includes(doc.format)) continue;
    if (args.split && args.split !== (doc.logical.heldOut ? 'held-out' : 'tuned')) continue;
    documents++;
    thisDocument = { tp: 0, fp: 0, fn: 0 };
    perDocument.push({ family: doc.logical.kind, format: doc.format, counts: thisDocument });
    current = { split: doc.logical.heldOut ? 'held-out' : 'tuned', family: doc.logical.kind };
    currentDocument = doc.logical.heldOut && (OCR_FORMATS as readonly string[]).includes(doc.format) ? { tp: 0, fp: 0, fn: 0 } : undefined;
    if (currentDocument) heldOutScans.push(currentDocument);
    const showMisses = args.verbose && (args.lofo ? doc.logical.kind !== args['hold-out'] : args.misses === 'all' || args.misses === current.split);
    const t0 = performance.now();
    const facts = FACTS_BY_KIND[doc.logical.kind];
    const sniffed = await sniffDocumentType(doc.bytes);
    let extracted: ExtractedFact[] = [];
    let failure: string | undefined;
    if (!sniffed.ok) failure = sniffed.reason_code;
    else {
      const pages = await extractPages({ ocr }, { bytes: doc.bytes, mimeType: sniffed.value });
      if (!pages.ok) failure = pages.reason_code;
      else extracted = extractFacts({ documentId: doc.id, pages: pages.value.pages, facts });
      if (showMisses && pages.ok && extracted.some((f) => f.status !== 'resolved' || comparable(facts.find((d) => d.fact_id === f.fact_id)!.type, f.value ?? '') !== comparable(facts.find((d) => d.fact_id === f.fact_id)!.type, doc.logical.truth[f.fact_id] ?? ''))) {
        misses.push(`--- ${doc.id} (${doc.logical.layoutId}, ${doc.logical.locale})\n${pages.value.pages.map((p) => p.text).join('\n<page>\n')}`);
      }
    }
    const elapsed = performance.now() - t0;
    const t = timeByFormat.get(doc.format) ?? { ms: 0, documents: 0 };
    timeByFormat.set(doc.format, { ms: t.ms + elapsed, documents: t.documents + 1 });

    for (const definition of facts) {
      const expected = doc.logical.truth[definition.fact_id] ?? null;
      const fact = extracted.find((f) => f.fact_id === definition.fact_id);
      const got = fact?.status === 'resolved' ? fact.value : null;
      const right = got !== null && expected !== null && comparable(definition.type, got) === comparable(definition.type, expected);
      if (right) bump(doc.format, definition.fact_id, 'tp');
      else {
        if (got !== null) bump(doc.format, definition.fact_id, 'fp');
        if (expected !== null) bump(doc.format, definition.fact_id, 'fn');
        if (showMisses && (got !== null || expected !== null)) {
          const why = failure ?? `${fact?.status} [${fact?.reason_codes.join(',')}] ${JSON.stringify(fact?.candidates.slice(0, 3).map((c) => [c.value, c.anchor_match_quality]))}`;
          misses.push(`${doc.id} ${definition.fact_id}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(got)} — ${why}`);
        }
      }
    }
  }
} finally {
  await ocr.close();
}

const prf = (c: Counts) => {
  const precision = c.tp + c.fp === 0 ? 1 : c.tp / (c.tp + c.fp);
  const recall = c.tp + c.fn === 0 ? 1 : c.tp / (c.tp + c.fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
};
const sum = (filter: (format: string, field: string) => boolean): Counts => {
  const total = { tp: 0, fp: 0, fn: 0 };
  for (const [id, c] of counts) {
    const [format, field] = id.split('|') as [string, string];
    if (!filter(format, field)) continue;
    total.tp += c.tp; total.fp += c.fp; total.fn += c.fn;
  }
  return total;
};
const fmt = (n: number) => n.toFixed(3);
const fields = [...new Set([...counts.keys()].map((k) => k.split('|')[1]!))];
const formats = [...TEXT_FORMATS, ...OCR_FORMATS].filter((f) => [...counts.keys()].some((k) => k.startsWith(`${f}|`)));

const out: string[] = [];
out.push(`Extraction accuracy — seed ${seed}, ${documents} documents (${textDocuments} per text format, ${ocrDocuments} scans), ${((performance.now() - started) / 1000).toFixed(1)} s`);
out.push('');
out.push(`${'field'.padEnd(18)}${formats.map((f) => f.padStart(22)).join('')}`);
out.push(`${''.padEnd(18)}${formats.map(() => '     P     R    F1   n'.padStart(22)).join('')}`);
for (const field of fields) {
  const cells = formats.map((format) => {
    const c = sum((f, x) => f === format && x === field);
    const n = c.tp + c.fn + (c.fp - Math.min(c.fp, c.fn));
    if (c.tp + c.fp + c.fn === 0) return '—'.padStart(22);
    const { precision, recall, f1 } = prf(c);
    return `${fmt(precision)} ${fmt(recall)} ${fmt(f1)} ${String(n).padStart(3)}`.padStart(22);
  });
  out.push(`${field.padEnd(18)}${cells.join('')}`);
}
out.push('');
out.push(`${'format'.padEnd(12)}${'precision'.padStart(10)}${'recall'.padStart(10)}${'F1'.padStart(8)}${'goal'.padStart(8)}  ${'ms/doc'.padStart(8)}`);
let missed = false;
const line = (name: string, c: Counts, goal: number | undefined, ms?: number) => {
  const { precision, recall, f1 } = prf(c);
  const verdict = goal === undefined ? '' : f1 >= goal ? `≥${goal} ok` : `<${goal} MISSED`;
  if (goal !== undefined && f1 < goal) missed = true;
  out.push(`${name.padEnd(12)}${fmt(precision).padStart(10)}${fmt(recall).padStart(10)}${fmt(f1).padStart(8)}${verdict.padStart(13)}  ${ms === undefined ? '' : ms.toFixed(0).padStart(8)}`);
};
for (const format of formats) {
  const t = timeByFormat.get(format);
  line(format, sum((f) => f === format), undefined, t ? t.ms / t.documents : undefined);
}

// Tuned and held-out layouts, per family and format; the goals apply to the held-out half.
const splitSum = (split: string, family: string | undefined, formatList: readonly string[]): Counts => {
  const total = { tp: 0, fp: 0, fn: 0 };
  for (const [id, c] of bySplit) {
    const [sp, fam, format] = id.split('|') as [string, string, string];
    if (sp !== split || (family !== undefined && fam !== family) || !formatList.includes(format)) continue;
    total.tp += c.tp; total.fp += c.fp; total.fn += c.fn;
  }
  return total;
};
const seenFamilies = [...new Set([...bySplit.keys()].map((k) => k.split('|')[1]!))].sort();
const ocrFormats = formats.filter((f) => (OCR_FORMATS as readonly string[]).includes(f));
const columns: Array<[string, readonly string[]]> = [
  ...formats.filter((f) => (TEXT_FORMATS as readonly string[]).includes(f)).map((f) => [f, [f]] as [string, readonly string[]]),
  ...ocrFormats.map((f) => [f, [f]] as [string, readonly string[]]),
  ...(ocrFormats.length > 0 ? [['ocr (all)', ocrFormats] as [string, readonly string[]]] : []),
];
for (const split of ['tuned', 'held-out']) {
  out.push('', `F1 on ${split} layouts${split === 'held-out' ? ` (goals: ≥ ${TEXT_GOAL} per text format, ≥ ${OCR_GOAL} over scans)` : ''}`);
  out.push(`${'family'.padEnd(20)}${columns.map(([name]) => name.padStart(12)).join('')}`);
  for (const family of [...seenFamilies, undefined]) {
    const cells = columns.map(([, list]) => {
      const c = splitSum(split, family, list);
      return c.tp + c.fp + c.fn === 0 ? '—'.padStart(12) : `${fmt(prf(c).f1)} (${c.tp + c.fn})`.padStart(12);
    });
    out.push(`${(family ?? 'all').padEnd(20)}${cells.join('')}`);
  }
}
out.push('', 'Held-out goals:');
for (const [name, list] of columns) {
  if (name !== 'ocr (all)' && !(TEXT_FORMATS as readonly string[]).includes(name)) continue;
  line(name, splitSum('held-out', undefined, list), name === 'ocr (all)' ? OCR_GOAL : TEXT_GOAL);
}
/**
 * How far an F1 could move with another sample of documents: a bootstrap over documents (2,000
 * resamples, seeded), 2.5th to 97.5th percentile.
 */
function interval(documentCounts: readonly Counts[]): [number, number] {
  const rng = createRng(seed);
  const f1s: number[] = [];
  for (let r = 0; r < 2000; r++) {
    const total = { tp: 0, fp: 0, fn: 0 };
    for (let i = 0; i < documentCounts.length; i++) {
      const c = documentCounts[Math.floor(rng.next() * documentCounts.length)]!;
      total.tp += c.tp; total.fp += c.fp; total.fn += c.fn;
    }
    f1s.push(prf(total).f1);
  }
  f1s.sort((a, b) => a - b);
  return [f1s[50]!, f1s[1949]!];
}
if (heldOutScans.length > 1) {
  const [low, high] = interval(heldOutScans);
  out.push(`${'ocr (all)'.padEnd(12)}95 % interval ${fmt(low)}–${fmt(high)} over ${heldOutScans.length} held-out scans (bootstrap by document)`);
}
if (args.lofo) {
  // Leave one family out. Extraction has no fitted parameters: what is "tuned" is the rules, by a
  // person reading misses. So each family in turn is the unseen one — measured on all of its
  // layouts, its misses kept out of sight (--hold-out) while the rules change — and the figure
  // of a family is what a customer bringing that kind would get.
  const goalOf = (name: string) => (name === 'ocr (all)' || (OCR_FORMATS as readonly string[]).includes(name) ? OCR_GOAL : TEXT_GOAL);
  out.push('', `Leave one family out: F1 [95 % interval] (facts), each family unseen in turn (goals: ≥ ${TEXT_GOAL} per text format, ≥ ${OCR_GOAL} over scans)`);
  out.push(`${'family'.padEnd(20)}${columns.map(([name]) => name.padStart(26)).join('')}`);
  for (const family of seenFamilies) {
    const cells = columns.map(([name, list]) => {
      const docs = perDocument.filter((d) => d.family === family && list.includes(d.format)).map((d) => d.counts);
      const total = docs.reduce((a, c) => ({ tp: a.tp + c.tp, fp: a.fp + c.fp, fn: a.fn + c.fn }), { tp: 0, fp: 0, fn: 0 });
      if (total.tp + total.fp + total.fn === 0) return '—'.padStart(26);
      const f1 = prf(total).f1;
      if (f1 < goalOf(name)) missed = true;
      const [low, high] = interval(docs);
      return `${fmt(f1)}${f1 < goalOf(name) ? '!' : ' '}[${fmt(low)}–${fmt(high)}] (${total.tp + total.fn})`.padStart(26);
    });
    out.push(`${family.padEnd(20)}${cells.join('')}`);
  }
  out.push('("!" marks a family below its goal)');
}
if (args.verbose && misses.length > 0) out.push('', 'Misses:', ...misses);
process.stdout.write(out.join('\n') + '\n');
process.exit(missed ? 1 : 0);
