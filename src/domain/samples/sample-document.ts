import { setTimeout as sleep } from 'node:timers/promises';
import type { CaseTypeDefinition } from '../case-types/definition.ts';
import { failOn, ok, type Result } from '../errors.ts';
import { drawSamplePdf } from './sample-pdf.ts';
import { planSampleDocument, type SamplePlan } from './sample-plan.ts';
import { parseSampleDocumentUrl, sampleDocumentUrl, sampleOutcomeOf, type SampleAddress } from './sample-url.ts';

/** How long a `slow` sample takes to read by default (SIMULATED_SLOW_READ_MS). */
export const SIMULATED_SLOW_READ_MS = 20_000;

export interface DrawnSample {
  plan: SamplePlan;
  bytes: Uint8Array;
  /** The address kept as the document's `source_url`: the document kind spelled out. */
  sourceUrl: string;
  filename: string;
}

/**
 * A sample document for a case, drawn when it is asked for: the values a gate compares with an
 * answer are the case's answers as they stand (pre-fill overlaid by what was given), so
 * `all_facts` passes and `gate_mismatch` fails for the reason it names. A `dossier-test:` address
 * that does not fit the case is `invalid_document_url`, naming what does not fit.
 */
export async function drawSampleDocument(input: {
  definition: CaseTypeDefinition;
  address: SampleAddress;
  answers: Record<string, unknown>;
  now: Date;
}): Promise<Result<DrawnSample>> {
  const planned = planSampleDocument(input);
  if (!planned.ok) return failOn('document_url', 'invalid_document_url', `document_url ${planned.message}.`);
  const plan = planned.value;
  return ok({
    plan,
    bytes: await drawSamplePdf(plan),
    sourceUrl: sampleDocumentUrl({ ...input.address, kindOrNode: plan.documentKind }),
    filename: `sample-${plan.documentKind.replaceAll('_', '-')}-${plan.outcome.replaceAll('_', '-')}.pdf`,
  });
}

/** Reads a `document_url` that is a sample address; only test keys may use one. */
export function sampleAddressFor(url: string, environment: 'test' | 'live'): Result<SampleAddress> {
  if (environment !== 'test') {
    return failOn('document_url', 'invalid_document_url', 'Sample documents (dossier-test:…) are for test mode only: use a test key (sk_test_…), or give a public https URL of the document.');
  }
  const parsed = parseSampleDocumentUrl(url);
  return parsed.ok ? ok(parsed.value) : failOn('document_url', 'invalid_document_url', `document_url ${parsed.message}.`);
}

/**
 * The `slow` sample's reading time, spent in the document job before extraction starts, as a slow
 * fetch or a long OCR would spend it: the document stays `processing` and the case `processing`
 * meanwhile. Test environment only; any other document waits 0 ms.
 */
export async function waitForSimulatedRead(doc: { environment: string; source_url: string | null }, slowReadMs: number): Promise<void> {
  if (doc.environment !== 'test' || sampleOutcomeOf(doc.source_url) !== 'slow' || slowReadMs <= 0) return;
  await sleep(slowReadMs);
}
