import type { AppContext } from '../deps.ts';
import { getCaseType } from '../case-types/case-types.ts';
import { caseTypeLocales } from '../case-types/translations.ts';
import { chooseOcrLanguages, sniffDocumentType, type RenderedPageImage, type SupportedMimeType } from '../documents/index.ts';
import { MAX_PAGE_PIXELS, PAGE_IMAGE_SCALE } from '../console/page-images.ts';
import { failOn, ok, type Result } from '../errors.ts';
import { extractFacts, factsForDocumentKind, type Evidence, type FactStatus, type FactType } from '../extraction/index.ts';
import type { Tenant } from '../../ports/tenant.ts';
import { suggestAnchors, type AnchorSuggestion } from './anchor-suggestions.ts';

export interface TryDocumentInput {
  readonly tenant: Tenant;
  readonly caseTypeId: string;
  /**
   * The sample. `filename` and `mimeType` are what the sender said; as for uploads (contract §9) the
   * type is sniffed from the bytes and neither is used to decide it.
   */
  readonly document: { readonly bytes: Uint8Array; readonly filename?: string | undefined; readonly mimeType?: string | undefined };
  /** Which of the case type's facts to look for; absent: every fact. */
  readonly documentKind?: string | undefined;
  /** Also draw the PDF pages that hold evidence or a suggestion (the dashboard shows them; the API does not). */
  readonly withPageImages?: boolean;
}

export interface TriedEvidence {
  readonly page_index: number;
  readonly quote: string;
  /** Where the quote sits on the page, in the page's unit (PDF points, image pixels); null for text and DOCX. */
  readonly box: { readonly x: number; readonly y: number; readonly width: number; readonly height: number } | null;
}

export interface FactFound {
  readonly fact_id: string;
  readonly label: string;
  readonly type: FactType;
  readonly value: string;
  readonly anchor_match_quality: number;
  /** The anchor of the definition that matched, and the text on the page it matched. */
  readonly matched_anchor: { readonly anchor: string; readonly label_on_page: string };
  readonly evidence: TriedEvidence[];
  readonly reason_codes: string[];
}

export interface FactMissing {
  readonly fact_id: string;
  readonly label: string;
  readonly type: FactType;
  /** What a case would show: `needs_input` or `failed`. */
  readonly status: FactStatus;
  readonly reason_codes: string[];
  readonly suggestions: AnchorSuggestion[];
}

export interface TriedPage {
  readonly page_index: number;
  readonly method: string;
  readonly width: number | null;
  readonly height: number | null;
  readonly unit: string | null;
}

export interface TryDocumentResult {
  readonly case_type_id: string;
  readonly document_kind: string | null;
  readonly mime_type: SupportedMimeType;
  readonly pages: TriedPage[];
  readonly facts_found: FactFound[];
  readonly facts_missing: FactMissing[];
  /** Drawn when asked for, PDF only: the pages an evidence box or a suggestion is on. */
  readonly page_images?: RenderedPageImage[];
}

/**
 * "Try a document" (issue 28 §4): the extraction a case's document gets, run on a sample against
 * the case type's current fact definitions, with what each found fact matched and, for each fact
 * not found, the document's labels that would find it. Nothing is stored — no case, no document,
 * no page, no blob — and the bytes live only as long as this call. The bytes are sniffed with the
 * upload rules (same types, same 20 MiB limit) and read by the same extraction children
 * (`ctx.extraction`), so a sample that would fail as an upload fails here too, as `invalid_request`.
 */
export async function tryDocument(deps: Pick<AppContext, 'db' | 'extraction' | 'logger'>, input: TryDocumentInput): Promise<Result<TryDocumentResult>> {
  const caseType = await getCaseType(deps, { orgId: input.tenant.orgId, environment: input.tenant.environment, caseTypeId: input.caseTypeId });
  if (!caseType.ok) return caseType;
  const definition = caseType.value.definition;
  const kinds = new Set(definition.facts.flatMap((f) => f.document_kinds ?? []));
  if (input.documentKind !== undefined && kinds.size > 0 && !kinds.has(input.documentKind)) {
    return failOn('document_kind', 'invalid_request', `Case type ${input.caseTypeId} has no facts for document kind ${input.documentKind}; its kinds are ${[...kinds].sort().join(', ')}.`);
  }
  const sniffed = await sniffDocumentType(input.document.bytes);
  if (!sniffed.ok) return failOn('document', 'invalid_request', documentProblem(sniffed.reason_code, sniffed.message));

  let extracted;
  try {
    extracted = await deps.extraction.extractPages({ bytes: input.document.bytes, mimeType: sniffed.value, ocrLanguages: chooseOcrLanguages({ caseTypeLocales: caseTypeLocales(definition) }) });
  } catch (err) {
    // A child killed at its deadline or memory cap: as an upload would, the sample could not be
    // read. Logged without content; the caller may try a smaller sample.
    deps.logger.info({ err: err instanceof Error ? err.message : String(err) }, 'sample document not read');
    return failOn('document', 'invalid_request', 'The document could not be read within the time and memory limits of an upload.');
  }
  if (!extracted.ok) return failOn('document', 'invalid_request', documentProblem(extracted.reason_code, extracted.message));

  const pages = extracted.value.pages;
  const facts = input.documentKind !== undefined ? factsForDocumentKind(definition.facts, input.documentKind) : definition.facts;
  const readings = extractFacts({ documentId: 'doc_try', pages, facts });
  const suggestions = suggestAnchors({ pages, facts, extracted: readings });

  const found: FactFound[] = [];
  const missing: FactMissing[] = [];
  for (const fact of facts) {
    const reading = readings.find((r) => r.fact_id === fact.fact_id)!;
    const chosen = reading.candidates.find((c) => c.candidate_id === reading.candidate_id);
    if (reading.status === 'resolved' && reading.value !== null && chosen) {
      found.push({
        fact_id: fact.fact_id,
        label: fact.label,
        type: fact.type,
        value: reading.value,
        anchor_match_quality: reading.anchor_match_quality,
        matched_anchor: { anchor: chosen.anchor.phrase, label_on_page: chosen.anchor.quote },
        evidence: reading.evidence.map(triedEvidence),
        reason_codes: [...reading.reason_codes],
      });
    } else {
      missing.push({
        fact_id: fact.fact_id,
        label: fact.label,
        type: fact.type,
        status: reading.status,
        reason_codes: [...reading.reason_codes],
        suggestions: suggestions.get(fact.fact_id) ?? [],
      });
    }
  }
  const shownPages = [...new Set([...found.flatMap((f) => f.evidence.map((e) => e.page_index)), ...missing.flatMap((f) => f.suggestions.map((x) => x.page_index))])].sort((a, b) => a - b);
  const pageImages =
    input.withPageImages && extracted.value.mime_type === 'application/pdf' && shownPages.length > 0
      ? await deps.extraction.renderPages({ bytes: input.document.bytes, pageIndexes: shownPages, scale: PAGE_IMAGE_SCALE, maxRenderPixels: MAX_PAGE_PIXELS }).catch((err: unknown) => {
          // The answer stands without pictures: the quotes and page numbers say the same.
          deps.logger.info({ err: err instanceof Error ? err.message : String(err) }, 'sample pages not drawn');
          return undefined;
        })
      : undefined;
  return ok({
    case_type_id: caseType.value.case_type_id,
    document_kind: input.documentKind ?? null,
    mime_type: extracted.value.mime_type,
    pages: pages.map((p) => ({ page_index: p.page_index, method: p.method, width: p.size?.width ?? null, height: p.size?.height ?? null, unit: p.size?.unit ?? null })),
    facts_found: found,
    facts_missing: missing,
    ...(pageImages ? { page_images: pageImages } : {}),
  });
}

function triedEvidence(e: Evidence): TriedEvidence {
  const box = e.source.kind === 'box' ? { x: e.source.x, y: e.source.y, width: e.source.width, height: e.source.height } : null;
  return { page_index: e.page_index, quote: e.quote, box };
}

/** The upload's refusal in words (the applicant app's wording, for an integrator). */
function documentProblem(reason: string, detail: string): string {
  switch (reason) {
    case 'too_large':
      return `The document is too large to read as an upload (${detail}).`;
    case 'empty_document':
      return 'The document is empty.';
    case 'unsupported_type':
      return 'The document is not a PDF, PNG, JPEG, DOCX or UTF-8 text file.';
    case 'encrypted_pdf':
      return 'The PDF needs a password, so it cannot be read.';
    default:
      return `The document could not be read (${reason}): ${detail}`;
  }
}
