/**
 * The reference for the text-PDF benchmark (issue 28 §5): pdfjs alone, as the pipeline loads it
 * (the legacy build, its worker on the calling thread, the same font and CMap assets), each
 * document opened and every page's getTextContent awaited — no layout, no boxes, no facts. Its
 * answer is the page's item strings, so a run in a child process carries text back over IPC as
 * the extraction child does.
 *
 * Imported, it gives `rawTextContent`; run as a child of bench/extraction.ts (`fork`, advanced
 * serialization, as the extraction pool forks), it answers `{ bytes }` with `{ pages }`.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

type PdfjsModule = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let loading: Promise<{ pdfjs: PdfjsModule; root: string }> | undefined;

function loadPdfjs(): Promise<{ pdfjs: PdfjsModule; root: string }> {
  loading ??= (async () => {
    const workerModule = 'pdfjs-dist/legacy/build/pdf.worker.mjs';
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker ??= await import(workerModule);
    const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
    return { pdfjs, root: dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')) };
  })();
  return loading;
}

/** Each page's text as getTextContent gives it (item strings joined by spaces). */
export async function rawTextContent(bytes: Uint8Array): Promise<string[]> {
  const { pdfjs, root } = await loadPdfjs();
  const task = pdfjs.getDocument({
    data: new Uint8Array(bytes),
    standardFontDataUrl: join(root, 'standard_fonts') + '/',
    cMapUrl: join(root, 'cmaps') + '/',
    cMapPacked: true,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  });
  try {
    const pdf = await task.promise;
    const pages: string[] = [];
    for (let i = 1; i <= pdf.numPages; i++) {
      const page = await pdf.getPage(i);
      const content = await page.getTextContent();
      pages.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
      page.cleanup();
    }
    return pages;
  } finally {
    await task.destroy();
  }
}

if (process.send) {
  process.on('message', (message: { bytes: Uint8Array }) => {
    void rawTextContent(message.bytes).then(
      (pages) => process.send!({ pages }),
      (error: unknown) => process.send!({ error: String(error) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
