import { createExtractionPool } from '../src/jobs/extraction-pool.ts';
import { createTesseractOcr, extractPages } from '../src/domain/documents/index.ts';
import { generateCorpus } from './corpus/generate.ts';
const pdfs: Uint8Array[] = [];
for await (const doc of generateCorpus({ seed: 777, textDocuments: 60, ocrDocuments: 0 })) if (doc.format === 'pdf') pdfs.push(doc.bytes);
const pool = createExtractionPool({ size: 1 });
const ocr = createTesseractOcr();
const text = new TextEncoder().encode('hello world text');
for (const [name, fn] of [['pool', (b: Uint8Array) => pool.extractPages({ bytes: b })], ['inproc', (b: Uint8Array) => extractPages({ ocr }, { bytes: b })]] as const) {
  await fn(pdfs[0]!);
  let t = performance.now();
  for (let i = 0; i < 100; i++) await fn(text);
  const tt = (performance.now() - t) / 100;
  t = performance.now();
  for (const p of pdfs) await fn(p);
  console.log(name, 'text', tt.toFixed(2), 'ms; pdf', ((performance.now() - t) / pdfs.length).toFixed(2), 'ms', pdfs.length);
}
await pool.close(); await ocr.close();
