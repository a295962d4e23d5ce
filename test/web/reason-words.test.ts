import { describe, expect, it } from 'vitest';
import { RULE_REASON_CODES } from '../../src/domain/cases/plan-workflow.ts';
import { FACT_REASON_CODES } from '../../src/domain/extraction/types.ts';
import { documentFailureInWords, reasonInWords } from '../../src/web/dashboard/cases/reason-words.ts';

describe('reason codes in words on the case page', () => {
  it('has a sentence of its own for every code extraction, the gates and erasure write', () => {
    const written = (code: string) => `${code.charAt(0).toUpperCase()}${code.slice(1).replace(/_/g, ' ')}.`;
    for (const code of [...FACT_REASON_CODES, ...RULE_REASON_CODES, 'erased']) {
      const sentence = reasonInWords(code);
      expect(sentence, code).not.toBe(written(code));
      expect(sentence, code).not.toMatch(/_/);
    }
  });

  it('writes an unknown code out in words rather than as an identifier', () => {
    expect(reasonInWords('rule_range_failed')).toBe('Rule range failed.');
  });

  it('says why a document failed in a sentence, for every failure the reader and the fetcher write', () => {
    const failures = ['corrupt_document', 'empty_document', 'encrypted_pdf', 'extraction_timeout', 'no_text_found', 'ocr_failed', 'too_large', 'too_many_pages', 'unsupported_type', 'fetch_blocked_address', 'fetch_connection_failed', 'fetch_failed', 'fetch_http_error', 'fetch_invalid_url', 'fetch_redirected', 'fetch_timeout'];
    for (const code of failures) {
      const sentence = documentFailureInWords(code);
      expect(sentence, code).not.toMatch(/_/);
      expect(sentence.length, code).toBeGreaterThan(code.length);
    }
    expect(documentFailureInWords('some_new_reason')).toBe('Some new reason.');
  });
});
