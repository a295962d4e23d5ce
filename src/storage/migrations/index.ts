import type { Tx } from '../schema.ts';
import { foundation } from './0001_foundation.ts';
import { cases } from './0002_cases.ts';
import { webhooks } from './0003_webhooks.ts';
import { caseEngine } from './0004_case_engine.ts';
import { documents } from './0005_documents.ts';
import { usageShards } from './0006_usage_shards.ts';
import { operators } from './0007_operators.ts';
import { pageGeometry } from './0008_page_geometry.ts';
import { connectors } from './0009_connectors.ts';
import { envelopeIdempotencyKey } from './0010_envelope_idempotency_key.ts';
import { operations } from './0011_operations.ts';
import { console_ } from './0012_console.ts';
import { developerSettings } from './0013_developer_settings.ts';
import { caseRecords } from './0015_case_records.ts';
import { queueCounts } from './0017_queue_counts.ts';
import { connectorCallRevisions } from './0019_connector_call_revisions.ts';
import { factCorrectedBy } from './0021_fact_corrected_by.ts';
import { documentObjects } from './0022_document_objects.ts';
import { webhookListeners } from './0023_webhook_listeners.ts';
import { operatorInvitations } from './0024_operator_invitations.ts';
import { caseAssignmentAndSearch } from './0025_case_assignment_and_search.ts';
import { correctionEvidence } from './0026_correction_evidence.ts';
import { caseRevisionNotices } from './0027_case_revision_notices.ts';
import { caseSearchText } from './0028_case_search_text.ts';
import { createSessionFunction } from './0029_create_session_function.ts';
import { caseTouchByKey } from './0030_case_touch_by_key.ts';

/** A forward-only schema step. Applied once, in order, inside one transaction. */
export interface Migration {
  /** Sorts in application order; never renamed once released. */
  id: string;
  up(trx: Tx): Promise<void>;
}

export const MIGRATIONS: readonly Migration[] = [
  foundation,
  cases,
  webhooks,
  caseEngine,
  documents,
  usageShards,
  operators,
  pageGeometry,
  connectors,
  envelopeIdempotencyKey,
  operations,
  console_,
  developerSettings,
  caseRecords,
  queueCounts,
  connectorCallRevisions,
  factCorrectedBy,
  documentObjects,
  webhookListeners,
  operatorInvitations,
  caseAssignmentAndSearch,
  correctionEvidence,
  caseRevisionNotices,
  caseSearchText,
  createSessionFunction,
  caseTouchByKey,
];
