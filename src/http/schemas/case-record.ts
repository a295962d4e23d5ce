import { z } from 'zod';
import { WHY_HERE, QUEUE_CATEGORIES, QUEUE_STATUSES } from '../../domain/cases/queue.ts';
import { exampleCaseRecord, exampleDocument, exampleDocumentDetail, exampleErasedDocumentDetail, exampleFact, exampleQueueRow } from './examples.ts';

const timestamp = z.string().meta({ description: 'ISO 8601 UTC with milliseconds.' });
const runtimeStatus = z.enum(['intake_in_progress', 'processing', 'gate_ready', 'gate_evaluating', 'ready_for_review', 'complete']);
const whyHereCode = z.enum(Object.keys(WHY_HERE) as [keyof typeof WHY_HERE, ...(keyof typeof WHY_HERE)[]]);

export const evidenceSourceSchema = z
  .discriminatedUnion('kind', [
    z
      .object({
        kind: z.literal('text'),
        char_start: z.number().int().min(0),
        char_end: z.number().int().min(0),
      })
      .meta({
        description:
          'Plain text and DOCX: offsets (UTF-16 code units) into the original decoded text — the uploaded UTF-8 text without its BOM; for DOCX the body text with one line per paragraph and a tab between table cells. With runs of whitespace folded to one space, the slice equals `quote` folded the same way.',
      }),
    z
      .object({
        kind: z.literal('box'),
        page_index: z.number().int().min(0),
        x: z.number(),
        y: z.number(),
        width: z.number().min(0),
        height: z.number().min(0),
      })
      .meta({ description: 'PDF text layers and OCR: the box enclosing the quoted glyphs or words, in the page’s `unit` (see the document’s pages), origin at the top-left corner, y downwards.' }),
  ])
  .meta({ id: 'EvidenceSource' });

export const evidenceSchema = z.object({
  evidence_id: z.string(),
  quote: z.string(),
  location: z.object({ char_start: z.number().int(), char_end: z.number().int() }).meta({ description: 'Offsets into the canonical page text (the document’s `pages[].text`).' }),
  doc_id: z.string(),
  page_index: z.number().int(),
  source: evidenceSourceSchema.optional().meta({ description: 'The same span in the document as uploaded. Absent only on evidence extracted before sources were recorded.' }),
});

export const provenanceSchema = z.object({
  kind: z.string(),
  document_id: z.string(),
  page_index: z.number().int(),
  quote: z.string(),
  char_start: z.number().int(),
  char_end: z.number().int(),
});

export const factSchema = z
  .object({
    fact_id: z.string(),
    fact_label: z.string(),
    status: z.enum(['pending', 'resolved', 'needs_input', 'failed']),
    value: z.string().nullable().meta({ description: 'Normalised value: dates YYYY-MM-DD, money a decimal string; null until known.' }),
    candidate_id: z.string().nullable(),
    anchor_match_quality: z.number().min(0).max(1).nullable(),
    source: z.enum(['document_extraction', 'applicant_input', 'applicant_follow_up', 'prefill', 'operator']).nullable(),
    corrected_by: z.enum(['applicant', 'operator']).nullable().meta({ description: 'Who changed the value by hand last: `applicant` when the applicant corrected what was read from their document (its evidence stays: it shows what was read), `operator` for an operator correction, null otherwise. The previous value is kept in the correction history.' }),
    reason_codes: z.array(z.string()),
    provenance: z.array(provenanceSchema),
    verification_metadata: z.array(z.unknown()),
    evidence: z.array(evidenceSchema),
    updated_at: timestamp,
  })
  .meta({ id: 'Fact', example: exampleFact });

export const documentSchema = z
  .object({
    doc_id: z.string(),
    status: z.enum(['uploaded', 'processing', 'processed', 'failed', 'erased']),
    mime_type: z.string().nullable().meta({ description: 'Sniffed from the bytes; null until fetched.' }),
    document_kind: z.string().nullable(),
    filename: z.string().nullable(),
    byte_size: z.number().int().nullable(),
    sha256: z.string().nullable(),
    page_count: z.number().int().nullable(),
    failure_reason: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Document', example: exampleDocument });

export const documentPageSchema = z
  .object({
    page_index: z.number().int().min(0),
    method: z.enum(['text_layer', 'ocr', 'docx', 'plain']).meta({ description: 'How the text was read: the PDF text layer, OCR, the DOCX body, or plain text.' }),
    text: z.string().meta({ description: 'The canonical page text: every evidence `location` (char_start, char_end) indexes into it, in UTF-16 code units.' }),
    width: z.number().nullable().meta({ description: 'Page width in `unit`; null for plain text and DOCX, which have no page geometry.' }),
    height: z.number().nullable().meta({ description: 'Page height in `unit`; null for plain text and DOCX.' }),
    unit: z.enum(['pt', 'px']).nullable().meta({ description: '`pt` (PDF points, 1/72 inch) for PDF pages, `px` (image pixels) for PNG and JPEG scans. Evidence boxes use the same unit, origin at the top-left corner, y downwards.' }),
  })
  .meta({ id: 'DocumentPage' });

export const documentDetailSchema = documentSchema
  .extend({
    case_id: z.string(),
    pages: z.array(documentPageSchema).meta({ description: 'One entry per page; empty until processed, for a failed document, and after erasure.' }),
  })
  .meta({ id: 'DocumentDetail', example: exampleDocumentDetail, examples: [exampleDocumentDetail, exampleErasedDocumentDetail] });

/** The state of one workflow action node (issue 14). */
export const actionStateSchema = z
  .object({
    node_id: z.string(),
    title: z.string(),
    connector_key: z.string(),
    operation_id: z.string(),
    when: z.enum(['on_submit', 'on_decision_ready', 'on_approved', 'on_rejected', 'on_complete']),
    status: z
      .enum(['not_started', 'pending', 'retry_scheduled', 'succeeded', 'failed'])
      .meta({ description: '`not_started` until its trigger fires; `failed` after the last attempt (the case is then in the exception queue).' }),
    attempt_count: z.number().int().meta({ description: 'Attempts in the current budget (a retry starts a new one).' }),
    last_attempt_at: timestamp.nullable(),
    last_status_code: z.number().int().nullable(),
    last_duration_ms: z.number().int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: timestamp.nullable(),
    external_reference: z.string().nullable().meta({ description: 'Stored from the answer by `store_response … as external_reference`.' }),
  })
  .meta({ id: 'ActionState' });

const blockingItem = z.object({
  kind: z.enum(['rule', 'fact', 'document', 'action']),
  id: z.string(),
  why: z.string(),
  fact_ids: z.array(z.string()),
  reason_codes: z.array(z.string()),
});

const nextAction = z.object({
  actor: z.enum(['applicant', 'system', 'operator', 'customer']),
  action: z.string(),
  description: z.string(),
  fact_ids: z.array(z.string()).optional(),
  delivery_id: z.string().optional(),
});

export const queueRowSchema = z
  .object({
    case_id: z.string(),
    operating_mode: z.enum(['system_of_action', 'system_of_record']),
    runtime_status: runtimeStatus,
    queue_category: z.enum(QUEUE_CATEGORIES),
    queue_status: z.enum(QUEUE_STATUSES),
    why_here: z.string(),
    why_here_code: whyHereCode,
    blocking_items: z.array(blockingItem),
    blocking_fact_ids: z.array(z.string()),
    sort_timestamp: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'QueueRow', example: exampleQueueRow });

export const caseRecordSchema = z
  .object({
    case_id: z.string(),
    case_type_id: z.string(),
    workflow_id: z.string(),
    workflow_version: z.string(),
    operating_mode: z.enum(['system_of_action', 'system_of_record']),
    runtime_status: runtimeStatus,
    case_status: z.enum(['approved', 'rejected', 'decision_ready', 'abandoned']).nullable(),
    external_case_id: z.string().nullable(),
    external_applicant_id: z.string().nullable(),
    external_customer_id: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    workspace: z.object({
      current_node_id: z.string().nullable(),
      current_node_title: z.string().nullable(),
      current_gate_id: z.string().nullable(),
      current_gate_title: z.string().nullable(),
      next_action: nextAction.nullable(),
      operational_summary: z.object({
        reason: z.object({
          why_here: z.string(),
          why_here_code: whyHereCode,
          queue_category: z.enum(QUEUE_CATEGORIES),
          queue_status: z.enum(QUEUE_STATUSES),
          current_gate_id: z.string().nullable(),
          current_node_id: z.string().nullable(),
        }),
        blocking_items: z.array(blockingItem),
        primary_action: z.object({ action: z.string(), label: z.string(), method: z.string(), path: z.string() }).nullable(),
        ownership: z.object({ operator_id: z.string(), claimed_at: timestamp }).nullable(),
        blocking_fact_ids: z.array(z.string()),
        has_needs_input_facts: z.boolean(),
        has_failed_facts: z.boolean(),
      }),
      facts: z.array(factSchema),
      documents: z.array(documentSchema),
      structured_inputs: z.record(z.string(), z.unknown()),
      summary: z.object({
        resolved_count: z.number().int(),
        needs_input_count: z.number().int(),
        failed_count: z.number().int(),
        document_count: z.number().int(),
      }),
      actions: z.array(actionStateSchema).meta({ description: 'Every action node of the workflow, in workflow order.' }),
      jobs: z.array(
        z.object({
          job_id: z.string(),
          kind: z.string(),
          status: z.enum(['queued', 'running', 'succeeded', 'failed']),
          subject_id: z.string().nullable(),
          attempts: z.number().int(),
          last_error: z.string().nullable(),
          created_at: timestamp,
          updated_at: timestamp,
        }),
      ),
      intake_session: z
        .object({
          session_id: z.string(),
          status: z.enum(['open', 'submitted', 'expired']),
          expires_at: timestamp,
          submitted_at: timestamp.nullable(),
          created_at: timestamp,
        })
        .nullable(),
    }),
    queue_row: queueRowSchema,
    handoff: z
      .object({
        handoff_state: z.enum(['dispatching', 'delivered', 'dispatch_failed', 'acknowledged']),
        delivery_id: z.string().nullable(),
        acknowledged_at: timestamp.nullable(),
      })
      .nullable(),
    completed_at: timestamp.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'CaseRecord', description: 'The case record (spec §2.1–2.5): the current operator workspace projection.', example: exampleCaseRecord });

export const caseIdParams = z.object({ case_id: z.string().min(1).max(100).meta({ description: 'Case identifier (case_…).' }) });
