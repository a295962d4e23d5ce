import { SAMPLE_OUTCOMES, type SampleOutcome } from '../../domain/samples/sample-url.ts';

/**
 * What each sample outcome does and the case events it produces, through `POST /process` (no
 * applicant) and through the applicant app (a test session's upload step). The README's table says
 * the same; test/openapi/reference.test.ts keeps both listing every outcome.
 */
export const SAMPLE_OUTCOME_ROWS: Record<SampleOutcome, { shows: string; process: string; applicant: string }> = {
  all_facts: {
    shows: 'Every fact of the document kind, with values the gates accept (the applicant\'s own name, a recent date, an amount in range).',
    process: '`document.uploaded`, `document.processing`, `document.processed`, then `case.ready_for_review` (`review_step_reached`) or `case.completed` (system_of_record). Give `structured_inputs` for answers a gate compares (`full_name`), else that gate waits for them (`needs_input_without_applicant`)',
    applicant: '`document.processed`; after submission as through /process',
  },
  missing_fact: {
    shows: 'One required fact left off the page.',
    process: '`document.processed`, `case.ready_for_review` with reason `needs_input_without_applicant`',
    applicant: '`document.processed`; after submission `case.needs_input` and a follow-up question',
  },
  gate_mismatch: {
    shows: 'One fact a gate compares, with a value that fails it: another name than the applicant\'s, a date older than allowed, an amount out of range, a value not in the list.',
    process: '`document.processed`, `case.ready_for_review` with reason `gate_failed`',
    applicant: 'as through /process, after submission',
  },
  unreadable: {
    shows: 'An image-only scan with no text on it.',
    process: '`document.processing`, `document.failed` (`reason_code: no_text_found`), `case.ready_for_review` (`document_failed`)',
    applicant: '`document.failed`; the upload step says the file could not be read and offers a replacement',
  },
  slow: {
    shows: 'As `all_facts`, read after a delay of `SIMULATED_SLOW_READ_MS` (20 s by default).',
    process: 'as `all_facts`, `document.processed` about 20 s after `document.processing`',
    applicant: 'as `all_facts`; the file shows as uploaded meanwhile',
  },
};

/** The reference's section on sample documents (Markdown, after the quick start). */
export function sampleDocumentsReference(baseUrl: string): string {
  const rows = SAMPLE_OUTCOMES.map((o) => `| \`${o}\` | ${SAMPLE_OUTCOME_ROWS[o].shows} | ${SAMPLE_OUTCOME_ROWS[o].process} | ${SAMPLE_OUTCOME_ROWS[o].applicant} |`);
  return `
## Sample documents (test mode)

Every branch of a case can be tried without hosting a document. With a **test key**, \`document_url\` of
\`POST /api/v1/process\` may name a built-in sample:

\`\`\`
dossier-test:<case_type_id>/<document_kind or upload node_id>/<outcome>
\`\`\`

The sample is drawn from the case type's own facts (their labels, types and anchors), so your own case types
have them too. Each is a real one-page PDF read by the same extraction as any document: facts carry real
evidence and boxes. \`case_type_id\` may be left out (the address names it). A live key gets
\`validation_error\` / \`invalid_document_url\` with \`param: "document_url"\`.

\`\`\`sh
curl -X POST "${baseUrl}/api/v1/process" \\
  -H "Authorization: Bearer $DOSSIER_API_KEY" \\
  -H "Idempotency-Key: $(uuidgen)" \\
  -H "Content-Type: application/json" \\
  -d '{"document_url": "dossier-test:income_verification/pay_stub/gate_mismatch", "structured_inputs": {"full_name": "Jane Doe"}}'
\`\`\`

In a test session, each upload step offers the same samples under **Use a sample document**. From a terminal,
\`npm run dossier -- trigger income_verification missing_fact\` makes such a case and prints its events as they happen.

| Outcome | The sample shows | Events through /process | In the applicant app |
|---|---|---|---|
${rows.join('\n')}

Every case also records \`case.created\` and \`case.status_changed\` events; webhooks follow the case events as for any case.
`;
}
