/**
 * The extraction child process (see extraction-pool.ts): receives document bytes over IPC, runs
 * extractPages, and answers with its result value. Its OCR engine is started on first use and kept
 * for the next documents. It exits when its parent goes away.
 */
import { dieWithParent } from './orphan-watch.ts';
import { createTesseractOcr, extractPages, type ExtractionLimits, type OcrLanguages, type RenderedPageImage, type RenderPagesInput, type SupportedMimeType } from '../domain/documents/index.ts';
import { renderPdfPagesAt } from '../domain/documents/pdf.ts';

export type ExtractionRequest =
  | {
      readonly id: number;
      readonly kind?: 'extract';
      readonly bytes: Uint8Array;
      readonly mimeType?: SupportedMimeType;
      readonly limits?: Partial<ExtractionLimits>;
      readonly ocrLanguages?: OcrLanguages;
    }
  /** Console page images drawn ahead of time (the document job, after extraction). */
  | ({ readonly id: number; readonly kind: 'render' } & RenderPagesInput);

export type ExtractionReply =
  | { readonly id: number; readonly result: Awaited<ReturnType<typeof extractPages>> }
  | { readonly id: number; readonly rendered: RenderedPageImage[] }
  | { readonly id: number; readonly error: string };

const ocr = createTesseractOcr();

dieWithParent();

process.on('message', (message: ExtractionRequest) => {
  void (async () => {
    let reply: ExtractionReply;
    try {
      if (message.kind === 'render') {
        const { bytes, pageIndexes, scale, maxRenderPixels } = message;
        reply = { id: message.id, rendered: await renderPdfPagesAt(bytes, pageIndexes, { scale, maxRenderPixels }) };
      } else {
        const { bytes, mimeType, limits, ocrLanguages } = message;
        const result = await extractPages({ ocr, ...(limits ? { limits } : {}) }, { bytes, ...(mimeType ? { mimeType } : {}), ...(ocrLanguages ? { ocrLanguages } : {}) });
        reply = { id: message.id, result };
      }
    } catch (error) {
      reply = { id: message.id, error: error instanceof Error ? error.message.slice(0, 500) : String(error) };
    }
    process.send?.(reply);
  })();
});

process.on('disconnect', () => {
  void ocr.close().finally(() => process.exit(0));
});
