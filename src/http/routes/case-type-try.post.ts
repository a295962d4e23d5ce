import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { MAX_DOCUMENT_BYTES } from '../../domain/documents/index.ts';
import { failOn, unwrap } from '../../domain/errors.ts';
import { tryDocument } from '../../domain/try-document/try-document.ts';
import { FACT_TYPES } from '../../domain/extraction/index.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';

/** A 20 MiB document as base64 is 4/3 of it; the rest of the body is a few short fields. */
const TRY_BODY_LIMIT_BYTES = Math.ceil((MAX_DOCUMENT_BYTES * 4) / 3) + 64 * 1024;
const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

const tryBody = z
  .strictObject({
    document_base64: z
      .string()
      .min(1)
      .max(TRY_BODY_LIMIT_BYTES)
      .meta({ description: 'The sample document, base64-encoded: PDF, PNG, JPEG, DOCX or UTF-8 text, at most 20 MB decoded (the upload rules; the type is sniffed from the bytes).' }),
    filename: z.string().min(1).max(255).optional().meta({ description: 'The sample’s name, for your records: the type never comes from it.' }),
    document_kind: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a document kind of the case type, e.g. pay_stub')
      .optional()
      .meta({ description: 'Look for the facts of this document kind only; absent: every fact of the case type.' }),
  })
  .meta({ example: { document_base64: 'RW1wbG95ZWUgbmFtZTogSmFuZSBEb2UKUGF5IGRhdGU6IDA2LzA1LzIwMjYKR3Jvc3MgcGF5OiAkMiw0NTAuMDAK', filename: 'pay-stub.txt', document_kind: 'pay_stub' } });

const evidenceSchema = z.object({
  page_index: z.number().int(),
  quote: z.string(),
  box: z
    .object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() })
    .nullable()
    .meta({ description: 'Where the quote sits on the page, in the page’s unit (PDF points, image pixels); null for plain text and DOCX.' }),
});

const tryResult = z
  .object({
    case_type_id: z.string(),
    document_kind: z.string().nullable(),
    mime_type: z.string().meta({ description: 'The type sniffed from the bytes.' }),
    pages: z.array(z.object({ page_index: z.number().int(), method: z.string(), width: z.number().nullable(), height: z.number().nullable(), unit: z.string().nullable() })),
    facts_found: z.array(
      z.object({
        fact_id: z.string(),
        label: z.string(),
        type: z.enum(FACT_TYPES),
        value: z.string(),
        anchor_match_quality: z.number(),
        matched_anchor: z
          .object({ anchor: z.string(), label_on_page: z.string() })
          .meta({ description: 'The anchor of the fact definition that matched, and the text on the page it matched.' }),
        evidence: z.array(evidenceSchema),
        reason_codes: z.array(z.string()),
      }),
    ),
    facts_missing: z.array(
      z.object({
        fact_id: z.string(),
        label: z.string(),
        type: z.enum(FACT_TYPES),
        status: z.string().meta({ description: 'What a case would show: `needs_input` or `failed`.' }),
        reason_codes: z.array(z.string()),
        suggestions: z
          .array(z.object({ anchor: z.string(), value: z.string(), page_index: z.number().int(), quote: z.string(), message: z.string() }))
          .meta({ description: 'Labels of the document that, added to the fact’s anchors, make extraction read it (each was checked by running extraction with it), best first.' }),
      }),
    ),
  })
  .meta({ id: 'CaseTypeTry' });

/** POST /api/v1/case-types/{case_type_id}/try (issue 28 §4): extraction on a sample, nothing stored. */
export const tryCaseTypeRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/api/v1/case-types/:case_type_id/try',
    {
      config: { auth: 'case_types:read' },
      bodyLimit: TRY_BODY_LIMIT_BYTES,
      schema: {
        operationId: 'tryCaseTypeDocument',
        summary: 'Try a sample document against a case type',
        description:
          'Runs the extraction a case’s document gets on a sample, against the case type’s current fact definitions (those of `document_kind` when given), and answers each fact found (value, evidence, the anchor that matched) and each fact not found with suggested anchors: labels printed in the sample near a value of the fact’s type, each checked by extraction. ' +
          'Nothing is stored: no case, no document, and the bytes are discarded with the answer. The sample follows the upload rules (PDF, PNG, JPEG, DOCX or UTF-8 text, sniffed from the bytes, at most 20 MB); one that would fail as an upload is `invalid_request` with `param: "document"`.',
        tags: ['Case types'],
        security: [{ bearerAuth: [] }],
        params: z.object({ case_type_id: z.string().min(1).max(64) }),
        body: tryBody,
        response: { 200: tryResult, ...errorResponses(404) },
      },
    },
    async (request) => {
      const body = request.body;
      if (!BASE64.test(body.document_base64)) unwrap(failOn('document_base64', 'invalid_request', 'document_base64 is not base64.'));
      const bytes = new Uint8Array(Buffer.from(body.document_base64, 'base64'));
      return unwrap(
        await tryDocument(ctx, {
          tenant: authOf(request),
          caseTypeId: request.params.case_type_id,
          document: { bytes, filename: body.filename },
          documentKind: body.document_kind,
        }),
      );
    },
  );
};
