/**
 * The address of a built-in sample document (test mode only), as `POST /process` takes it in
 * `document_url` and as a sample document's row keeps it in `source_url`:
 *
 *   dossier-test:<case_type_id>/<document_kind or upload node_id>/<outcome>
 *
 * e.g. `dossier-test:income_verification/pay_stub/missing_fact`. Each segment is an identifier
 * of the case type format (lower_snake_case). An upload node's id stands for its first document
 * kind, so a case type whose kinds are not known by heart still has an address per upload step.
 */
export const SAMPLE_URL_SCHEME = 'dossier-test:';

/**
 * What a sample document forces, like Stripe's test card numbers:
 * - `all_facts`: every fact of the kind is on the page, with values the gates accept;
 * - `missing_fact`: one required fact is left out, so a follow-up question is asked (operator
 *   review when the case has no applicant);
 * - `gate_mismatch`: one fact a gate compares carries a value that fails it (a name that is not the
 *   applicant's, a date too old, an amount under the minimum, a value not in the list);
 * - `unreadable`: an image-only page with no text to find: the document ends `failed` with
 *   `no_text_found`;
 * - `slow`: `all_facts`, read after a delay (SIMULATED_SLOW_READ_MS, 20 s by default).
 */
export const SAMPLE_OUTCOMES = ['all_facts', 'missing_fact', 'gate_mismatch', 'unreadable', 'slow'] as const;
export type SampleOutcome = (typeof SAMPLE_OUTCOMES)[number];

export interface SampleAddress {
  caseTypeId: string;
  /** A document kind, or an upload node id (resolved against the definition later). */
  kindOrNode: string;
  outcome: SampleOutcome;
}

const SEGMENT = /^[a-z][a-z0-9_]{0,63}$/;

export function isSampleDocumentUrl(url: string | null | undefined): boolean {
  return typeof url === 'string' && url.toLowerCase().startsWith(SAMPLE_URL_SCHEME);
}

export function sampleDocumentUrl(address: SampleAddress): string {
  return `${SAMPLE_URL_SCHEME}${address.caseTypeId}/${address.kindOrNode}/${address.outcome}`;
}

export type ParsedSampleUrl = { ok: true; value: SampleAddress } | { ok: false; message: string };

/** Reads a `dossier-test:` address; the message says what is wrong with it and what is expected. */
export function parseSampleDocumentUrl(url: string): ParsedSampleUrl {
  const expected = `expected ${SAMPLE_URL_SCHEME}<case_type_id>/<document_kind>/<outcome> with outcome one of ${SAMPLE_OUTCOMES.join(', ')}`;
  if (!isSampleDocumentUrl(url)) return { ok: false, message: `is not a sample document address: ${expected}` };
  const segments = url.slice(SAMPLE_URL_SCHEME.length).split('/');
  if (segments.length !== 3 || !segments.every((s) => SEGMENT.test(s))) return { ok: false, message: `is not a sample document address: ${expected}` };
  const [caseTypeId, kindOrNode, outcome] = segments as [string, string, string];
  if (!(SAMPLE_OUTCOMES as readonly string[]).includes(outcome)) return { ok: false, message: `names no sample outcome "${outcome}": ${expected}` };
  return { ok: true, value: { caseTypeId, kindOrNode, outcome: outcome as SampleOutcome } };
}

/** The outcome of a stored sample document's address, when it is one. */
export function sampleOutcomeOf(sourceUrl: string | null | undefined): SampleOutcome | undefined {
  if (!isSampleDocumentUrl(sourceUrl)) return undefined;
  const parsed = parseSampleDocumentUrl(sourceUrl!);
  return parsed.ok ? parsed.value.outcome : undefined;
}
